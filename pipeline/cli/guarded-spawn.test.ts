// A guarded child cannot outlive its parent: SIGKILL the parent and the child is gone; SIGTERM stops it with a code.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { spawnGuarded } from './guarded-spawn.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const until = async (check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((wait) => setTimeout(wait, 50));
  return check();
};
const SLEEPER = ['-c', 'import os, sys, time; print(os.getpid(), flush=True); time.sleep(120)'];

describe('spawnGuarded', () => {
  it('stops the child when the parent is killed with SIGKILL (no handler runs), within 5 s', async () => {
    // The parent: a Node process that starts a guarded sleeper, prints the sleeper's pid, and waits.
    const parentScript = `
      const { spawnGuarded } = await import(${JSON.stringify(new URL('./guarded-spawn.ts', import.meta.url).href)});
      const child = spawnGuarded('python3', 'python3', ${JSON.stringify(SLEEPER)}, { stdout: 'pipe', stderr: 'inherit' });
      child.stdout.on('data', (chunk) => process.stdout.write(chunk));
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', parentScript], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    expect(await until(() => /^\d+\n/.test(out), 20_000)).toBe(true);
    const sleeper = Number(out.trim());
    expect(alive(sleeper)).toBe(true);
    parent.kill('SIGKILL');
    expect(await until(() => !alive(sleeper), 5000)).toBe(true);
  }, 40_000);

  it('forwards SIGTERM to the child and exits 128 + 15', async () => {
    const guardian = spawnGuarded('python3', 'python3', SLEEPER, { stdout: 'pipe', stderr: 'inherit' });
    let out = '';
    guardian.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    expect(await until(() => /^\d+\n/.test(out), 10_000)).toBe(true);
    const exited = new Promise<number | null>((resolve) => guardian.once('exit', (code) => resolve(code)));
    guardian.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(alive(Number(out.trim()))).toBe(false);
  }, 20_000);

  it('exits with the child own exit code', async () => {
    const guardian = spawnGuarded('python3', 'python3', ['-c', 'raise SystemExit(7)'], {
      stdout: 'ignore',
      stderr: 'ignore',
    });
    expect(await new Promise((resolve) => guardian.once('exit', (code) => resolve(code)))).toBe(7);
  });
});
