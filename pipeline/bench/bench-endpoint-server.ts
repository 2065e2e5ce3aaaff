// Starts the bench's fixed-latency endpoint (fixed-latency-server.ts) in a child process and talks to it over stdio.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ServerStats } from './fixed-latency-server.js';

/** A running endpoint in its own process: its work does not share the event loop of the client under test. */
export interface BenchServer<Stats = ServerStats> {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** Forgets the calls so far (before each measured loop). */
  reset(): Promise<void>;
  /** What the server measured since the last reset. */
  stats(): Promise<Stats>;
  /** Ends the child (closing its stdin) and waits for it to exit. */
  close(): Promise<void>;
}

const SERVER = join(import.meta.dirname, 'fixed-latency-server.ts');

/** Spawns the server with `latencyMs` per chat call; rejects with its stderr when it dies before answering. */
export function startBenchServer(latencyMs: number): Promise<BenchServer> {
  return startChildServer<ServerStats>(SERVER, [String(latencyMs)]);
}

/**
 * Spawns a bench server script (its first stdout line `{"baseURL"}`, then one JSON line per stdin command `reset` or
 * `stats`); rejects with its stderr when it dies before answering.
 */
export async function startChildServer<Stats>(script: string, args: readonly string[]): Promise<BenchServer<Stats>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let exited: Error | null = null;
  const exit = new Promise<void>((resolve) =>
    child.on('close', (code, signal) => {
      exited = new Error(`bench endpoint server exited (${signal ?? code}): ${stderr.slice(-2000)}`);
      for (const waiter of waiting.splice(0)) waiter.reject(exited);
      resolve();
    }),
  );
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(line));
  const next = () =>
    new Promise<string>((resolve, reject) => (exited ? reject(exited) : waiting.push({ resolve, reject })));
  // A write to a dead child fails with EPIPE; its 'close' already rejects every waiting command with its stderr.
  child.stdin.on('error', () => undefined);
  const command = async (name: string) => {
    if (exited) throw exited;
    const answer = next();
    child.stdin.write(`${name}\n`);
    return JSON.parse(await answer) as unknown;
  };
  const { baseURL } = JSON.parse(await next()) as { baseURL: string };
  return {
    baseURL,
    reset: async () => void (await command('reset')),
    stats: async () => (await command('stats')) as Stats,
    close: async () => {
      child.stdin.end();
      await exit;
    },
  };
}
