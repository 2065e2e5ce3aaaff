// Runs one of stalebench's TypeScript commands as a child node process from the repository root, its output passed
// through, and SIGINT/SIGTERM forwarded so a cancelled CI job stops the run the way Ctrl+C does.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { join } from 'node:path';

/** The repository root: commands run from it, as `pnpm <command>` does. */
export const REPOSITORY_ROOT = join(import.meta.dirname, '..', '..');

/** Where a child's output goes, chunk by chunk as it arrives. */
export interface ChildIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs `node --import tsx <script> <args>` (script relative to the repository root) and resolves with its exit code
 * (128 + the signal's number when a signal ended it).
 *
 * @example const code = await runNode('pipeline/cli/cli.ts', ['eval', '--model', 'sim'], process.env, io);
 */
export function runNode(script: string, args: readonly string[], env: NodeJS.ProcessEnv, io: ChildIo): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPOSITORY_ROOT, script), ...args], {
    cwd: REPOSITORY_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => io.out(String(chunk)));
  child.stderr.on('data', (chunk) => io.err(String(chunk)));
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}
