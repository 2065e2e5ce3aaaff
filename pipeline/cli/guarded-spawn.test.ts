// A guarded child cannot outlive its parent: SIGKILL the parent and the child is gone; SIGTERM stops it with a code.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lineOf, within } from '../test-support/wait-for-event.js';
import { spawnGuarded } from './guarded-spawn.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** Kills what a failed test left running (a pid that is gone already is skipped). */
const killIfAlive = (pid: number | undefined) => {
  if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGKILL');
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
    // The parent's stderr is a pipe the guardian and the sleeper inherit: it closes once the last of them is gone.
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', parentScript], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let sleeper: number | undefined;
    onTestFinished(() => [parent.pid, sleeper].forEach(killIfAlive));
    let err = '';
    parent.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const allGone = once(parent.stderr, 'close');
    sleeper = Number(await within(lineOf(parent.stdout, /^\d+$/), 20_000, "the sleeper's pid"));
    expect(alive(sleeper)).toBe(true);
    parent.kill('SIGKILL');
    await within(allGone, 5000, 'the guardian and the sleeper to stop');
    expect(alive(sleeper), err).toBe(false);
  }, 40_000);

  it('forwards SIGTERM to the child and exits 128 + 15', async () => {
    const guardian = spawnGuarded('python3', 'python3', SLEEPER, { stdout: 'pipe', stderr: 'inherit' });
    let sleeper: number | undefined;
    onTestFinished(() => [guardian.pid, sleeper].forEach(killIfAlive));
    sleeper = Number(await within(lineOf(guardian.stdout!, /^\d+$/), 10_000, "the sleeper's pid"));
    const exited = new Promise<number | null>((resolve) => guardian.once('exit', (code) => resolve(code)));
    guardian.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(alive(sleeper)).toBe(false);
  }, 20_000);

  it('exits with the child own exit code', async () => {
    const guardian = spawnGuarded('python3', 'python3', ['-c', 'raise SystemExit(7)'], {
      stdout: 'ignore',
      stderr: 'ignore',
    });
    expect(await new Promise((resolve) => guardian.once('exit', (code) => resolve(code)))).toBe(7);
  });
});
