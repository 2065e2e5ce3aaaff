// The contract of a local server that `pnpm services` starts without Docker (types only): one file per service.

/** A server this machine runs, as the state file under .cache/services/ records it. */
export interface RunningService {
  /** The pid whose life is the server's life (a dead pid means the server is gone). */
  pid: number;
  /** The loopback port it listens on. */
  port: number;
  /** Where its data lives (removed by stop, and when a dead pid is cleaned up). */
  dataDir: string;
  /** What it runs, e.g. `PostgreSQL 15.18 (Debian 15.18-0+deb12u1)`. */
  version: string;
  /** The environment variables that point the project at it, in the order they are printed. */
  exports: Record<string, string>;
}

/** One service: how to start it on loopback and how to stop it. */
export interface Service {
  /** Registry id (`neo4j`, `postgres`). */
  readonly id: string;
  /** What is missing to run it here (a binary, a tool), or null. */
  missing(env: Readonly<Record<string, string | undefined>>): string | null;
  /** Starts the server detached (it outlives this process) with its data under `dir`, an empty directory. */
  start(dir: string, env: Readonly<Record<string, string | undefined>>): Promise<RunningService>;
  /** Stops a running server and removes its data. */
  stop(running: RunningService, env: Readonly<Record<string, string | undefined>>): Promise<void>;
}
