// The bench's OpenAI-compatible endpoint, run as its own process: a fixed latency per call and a parseable decision.
//
// `node --import tsx pipeline/bench/fixed-latency-server.ts <latencyMs>` prints `{"baseURL": …}` on its first stdout
// line, then answers one stdin line per command: `reset` (forget the calls so far) and `stats` (a `ServerStats` JSON
// line). It exits when its stdin ends, so it never outlives the bench that started it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scriptedDecision } from './scripted-decision.js';
import { answerControlLines } from './server-control.js';
import { isEntryPoint } from '#core/entry-point.js';

/** What the server measured since the last `reset`, all on its own clock. */
export interface ServerStats {
  /** Chat-completions calls answered. */
  calls: number;
  /** From the first call's arrival to the last reply's end, ms. */
  windowMs: number;
  /** Σ over calls of arrival → reply (the latency as served, timer lateness included), ms. */
  busyMs: number;
  /** Calls whose prompt allowed no action (answered `{"action": "NONE"}`, which no scenario parses). */
  unscripted: number;
  /** The first call's raw request body, resent by the bench's floor and SDK loops; null before any call. */
  sample: string | null;
}

function chatCompletion(model: unknown, content: string, index: number): string {
  return JSON.stringify({
    id: `chatcmpl-bench-${index}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: typeof model === 'string' ? model : 'unknown',
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
}

/** Serves on 127.0.0.1 with `latencyMs` per chat call; commands come from `input`, answers go to `output`. */
async function serveFixedLatency(
  latencyMs: number,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<void> {
  let stats: ServerStats = { calls: 0, windowMs: 0, busyMs: 0, unscripted: 0, sample: null };
  let first = 0;
  const server = createServer((request, response) => {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [{ id: '*', object: 'model' }] }));
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw) as { model?: unknown; messages?: { role: string; content: string }[] };
      const index = stats.calls;
      stats.calls += 1;
      if (index === 0) {
        first = arrived;
        stats.sample = raw;
      }
      const content = scriptedDecision(body.messages ?? [], index);
      if (content === null) stats.unscripted += 1;
      const reply = chatCompletion(body.model, content ?? '{"action": "NONE"}', index);
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(reply);
        const done = performance.now();
        stats.busyMs += done - arrived;
        stats.windowMs = done - first;
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  output.write(`${JSON.stringify({ baseURL: `http://127.0.0.1:${port}/v1` })}\n`);
  answerControlLines(input, output, server, {
    reset: () => {
      stats = { calls: 0, windowMs: 0, busyMs: 0, unscripted: 0, sample: null };
    },
    stats: () => stats,
  });
}

if (isEntryPoint(import.meta.url)) {
  const latencyMs = Number(process.argv[2]);
  if (!Number.isFinite(latencyMs) || latencyMs < 0) {
    process.stderr.write(`fixed-latency-server: latency must be a number of ms ≥ 0, got ${process.argv[2]}\n`);
    process.exit(2);
  }
  void serveFixedLatency(latencyMs, process.stdin, process.stdout);
}
