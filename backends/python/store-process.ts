// Client of the JSON-lines store driver (backends/python/PROTOCOL.md): one child process per running store.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How the driver failed a request: the store's own code raised (`target`), the request was bad (`driver`), or the process died (`process`). */
export type StoreProcessErrorOrigin = 'target' | 'driver' | 'process';

/** A failed request. For `target` errors `name` is the Python exception type, so `Name: message` reads as the store's own words. */
export class StoreProcessError extends Error {
  readonly origin: StoreProcessErrorOrigin;
  constructor(origin: StoreProcessErrorOrigin, type: string, message: string) {
    super(message);
    this.name = type;
    this.origin = origin;
  }
}

/** Settings of `startStoreProcess`. */
export interface StoreProcessSettings {
  /** The interpreter (the venv's `bin/python`). */
  python: string;
  /** `backends/python/stalebench_store_driver.py`. */
  driver: string;
  /** Environment of the child (HOME, XDG_CONFIG_HOME point into the cell); PATH and friends are inherited. */
  env?: Record<string, string>;
  /** Per-request timeout; default 120 s. */
  timeoutMs?: number;
}

/** A running driver. */
export interface StoreProcess {
  /** Sends one request and waits for its response; rejects with `StoreProcessError`. */
  request<T>(op: string, parameters?: Record<string, unknown>): Promise<T>;
  /** Sends `close`, waits for the process to exit (kills it after 10 s). Idempotent. */
  close(): Promise<void>;
  /** The child's process id (undefined when it could not be spawned). */
  readonly pid: number | undefined;
  /** How the process ended, or null while it runs. */
  exitStatus(): { code: number | null; signal: string | null } | null;
  /** Resolves once the process has ended and `exitStatus()` says how (a test that kills it waits on this). */
  readonly exited: Promise<void>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Spawns the driver. Nothing but protocol lines is read from stdout; stderr is kept (its last 4 KB) to explain a
 * process that died.
 *
 * @example
 * const store = await startStoreProcess({ python: venvPython(root), driver: driverPath(root) });
 * await store.request('open', { adapter: 'inspeximus_store', dir, config: { receipts: true } });
 */
export function startStoreProcess(settings: StoreProcessSettings): StoreProcess {
  const child: ChildProcessWithoutNullStreams = spawn(settings.python, ['-u', settings.driver], {
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...settings.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pending = new Map<number, Pending>();
  let stderr = '';
  let nextId = 1;
  let exit: { code: number | null; signal: string | null } | null = null;
  let finished: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const finish = (code: number | null, signal: string | null, why: string): void => {
    if (exit) return;
    exit = { code, signal };
    const tail = stderr.trim().split('\n').slice(-6).join(' | ');
    for (const [id, waiting] of pending) {
      clearTimeout(waiting.timer);
      waiting.reject(
        new StoreProcessError(
          'process',
          'StoreProcessExited',
          `the store process ${why} before answering request ${id}${tail ? `: ${tail}` : ''}`,
        ),
      );
    }
    pending.clear();
    finished();
  };
  child.once('close', (code, signal) => finish(code, signal, `exited (code ${code}, signal ${signal})`));
  child.once('error', (error) => {
    stderr += `\n${error.message}`;
    finish(null, null, `could not run ${settings.python} (${error.message})`);
  });
  // Writing to a process that already died raises EPIPE on stdin; the pending request is rejected by 'close' instead.
  child.stdin.on('error', (error) => {
    stderr += `\n[stdin] ${error.message}`;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString('utf8')}`.slice(-4096);
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    let response: {
      id?: number;
      ok?: boolean;
      result?: unknown;
      error?: { type?: string; message?: string; origin?: StoreProcessErrorOrigin };
    };
    try {
      response = JSON.parse(line) as typeof response;
    } catch {
      stderr += `\n[stdout, not protocol] ${line}`;
      return;
    }
    const waiting = response.id === undefined ? undefined : pending.get(response.id);
    if (!waiting || response.id === undefined) return;
    pending.delete(response.id);
    clearTimeout(waiting.timer);
    if (response.ok) waiting.resolve(response.result);
    else
      waiting.reject(
        new StoreProcessError(
          response.error?.origin ?? 'driver',
          response.error?.type ?? 'Error',
          response.error?.message ?? 'no message',
        ),
      );
  });

  const request = <T>(op: string, parameters: Record<string, unknown> = {}): Promise<T> => {
    if (exit)
      return Promise.reject(
        new StoreProcessError('process', 'StoreProcessExited', `the store process has exited (code ${exit.code})`),
      );
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(
          new StoreProcessError(
            'process',
            'StoreProcessTimeout',
            `no answer to ${op} within ${settings.timeoutMs ?? 120_000} ms`,
          ),
        );
        child.kill('SIGKILL');
      }, settings.timeoutMs ?? 120_000);
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      child.stdin.write(`${JSON.stringify({ id, op, ...parameters })}\n`);
    });
  };

  let closing: Promise<void> | null = null;
  return {
    request,
    pid: child.pid,
    exitStatus: () => exit,
    exited,
    close() {
      closing ??= (async () => {
        if (!exit) await request('close').catch(() => undefined);
        child.stdin.end();
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      })();
      return closing;
    },
  };
}
