// The control lines a bench server child answers on stdin (pipeline/bench/bench-endpoint-server.ts drives them):
// `reset` clears its counters, `stats` prints them as one JSON line; closing stdin stops the server.
import type { Server } from 'node:http';
import { createInterface } from 'node:readline';

/**
 * Answers `reset` and `stats` on `input` (one JSON line each on `output`, an error line for anything else) and
 * closes `server` when `input` ends.
 *
 * @example answerControlLines(process.stdin, process.stdout, server, { reset: () => { stats = fresh(); }, stats: () => stats });
 */
export function answerControlLines(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  server: Server,
  counters: { reset: () => void; stats: () => unknown },
): void {
  const lines = createInterface({ input });
  lines.on('line', (command) => {
    if (command === 'reset') {
      counters.reset();
      output.write('{"ok": true}\n');
    } else if (command === 'stats') output.write(`${JSON.stringify(counters.stats())}\n`);
    else output.write(`${JSON.stringify({ error: `unknown command ${JSON.stringify(command)}` })}\n`);
  });
  lines.on('close', () => {
    server.closeAllConnections();
    server.close();
  });
}
