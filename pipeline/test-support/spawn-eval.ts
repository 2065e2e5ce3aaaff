// Test support: `pnpm eval` as one node process (its pid is the eval's own), with its output collected.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A spawned eval: the child, its exit code when it exits, and what it printed so far. */
export function spawnEval(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '..', 'cli', 'cli.ts'), 'eval', ...args],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}
