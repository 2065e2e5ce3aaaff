// The state of `pnpm services`: one JSON file per running service under .cache/services/, and whether its pid lives.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { hasExited, processStartOf } from '../run/run-lock.js';
import type { RunningService } from './service.js';

/** A state file: the running service plus what tells its pid from a reused one. */
export interface ServiceState extends RunningService {
  id: string;
  host: string;
  /** Kernel start time of `pid` (Linux), to tell a pid the system gave to another process since; null elsewhere. */
  processStart: string | null;
  startedAt: string;
}

/** The folder of the state files and the services' data (git-ignored). */
export const servicesDir = (root: string): string => join(root, '.cache', 'services');
const stateFile = (root: string, id: string) => join(servicesDir(root), `${id}.json`);

/** The state of one service, or null when it has none. */
export function readServiceState(root: string, id: string): ServiceState | null {
  try {
    return JSON.parse(readFileSync(stateFile(root, id), 'utf8')) as ServiceState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Ids of every service that has a state file. */
export function listServiceStates(root: string): string[] {
  try {
    return readdirSync(servicesDir(root))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  } catch {
    return [];
  }
}

/** Records a started service (written to a temporary file, then renamed: a reader never sees half a file). */
export function writeServiceState(root: string, id: string, running: RunningService): ServiceState {
  const state: ServiceState = {
    id,
    ...running,
    host: hostname(),
    processStart: processStartOf(running.pid),
    startedAt: new Date().toISOString(),
  };
  mkdirSync(servicesDir(root), { recursive: true });
  const temporary = `${stateFile(root, id)}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, stateFile(root, id));
  return state;
}

/** The folder a service keeps its data in: `.cache/services/<id>/`. */
export const serviceDir = (root: string, id: string): string => join(servicesDir(root), id);

/** Removes a service's state file, its data directory and its folder. */
export function removeServiceState(root: string, state: ServiceState): void {
  rmSync(state.dataDir, { recursive: true, force: true });
  rmSync(serviceDir(root, state.id), { recursive: true, force: true });
  rmSync(stateFile(root, state.id), { force: true });
}

/** True while `pid` names a process (one we may not signal counts as alive; an exited one not yet reaped does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Without /proc (not Linux) the signal's answer stands.
  return !hasExited(pid);
}

/** True while the recorded server still runs: same host, pid alive, and not reused by a later process. */
export function isRunning(state: ServiceState): boolean {
  if (state.host !== hostname() || !isAlive(state.pid)) return false;
  const start = state.processStart === null ? null : processStartOf(state.pid);
  return start === null || start === state.processStart;
}

/** Waits until `pid` is gone; false when it still lives after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  for (let waited = 0; waited < timeoutMs; waited += 100) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isAlive(pid);
}
