import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, vi } from 'vitest';
import { createEventCount } from '../test-support/wait-for-event.js';
import {
  acquireRunLock,
  hasExited,
  holderState,
  lockPathOf,
  processStartOf,
  readRunLock,
  RunLockedError,
  type LockHolder,
  type RunLock,
} from './run-lock.js';

const racer = join(import.meta.dirname, '..', 'test-support', 'lock-racer.ts');

/**
 * Starts `count` racer processes and, once every one has loaded and said `ready`, tells them all to go at once; once
 * every one has said won or lost, closes their stdin (a winner releases then). Resolves with their output lines.
 */
async function race(runDir: string, count: number): Promise<string[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', 'tsx', racer, runDir], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const ready = createEventCount();
  const verdicts = createEventCount();
  const runs = children.map((child) => {
    let output = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') return ready.add();
      output += `${line}\n`;
      if (/^(won|lost) /.test(line)) verdicts.add();
    });
    return new Promise<string>((resolve) => child.on('close', () => resolve(output.trim())));
  });
  // A racer that dies before its verdict (it could not load) fails the race instead of leaving it waiting.
  let decided = false;
  const died = Promise.race(runs).then((output) => {
    if (!decided) throw new Error(`a racer exited before every racer said won or lost: ${output}`);
  });
  await Promise.race([ready.reached(count), died]);
  for (const child of children) child.stdin.write('go\n');
  await Promise.race([verdicts.reached(count), died]);
  decided = true;
  for (const child of children) child.stdin.end();
  return Promise.all(runs);
}

const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const holder = (fields: Partial<LockHolder>): LockHolder => ({
  pid: deadPid(),
  host: hostname(),
  nonce: 'deadbeef',
  startedAt: '2026-01-01T00:00:00.000Z',
  processStart: null,
  ...fields,
});

describe('run-directory lock', () => {
  it('lets exactly one of six processes racing for a free lock win (O_EXCL create)', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'stalebench-race-'));
    const outputs = await race(runDir, 6);
    const winners = outputs.filter((output) => output.startsWith('won'));
    expect(winners, outputs.join('\n')).toHaveLength(1);
    const winner = winners[0]!.split(' ')[1];
    for (const output of outputs.filter((o) => !o.startsWith('won')))
      expect(output).toMatch(new RegExp(`^lost run directory .* is in use by pid \\d+ on host .* nonce ${winner}\\)`));
    expect(existsSync(lockPathOf(runDir))).toBe(false);
  }, 60_000);

  it("lets exactly one of six processes take over a dead holder's lock; the rest are refused naming the new holder", async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'stalebench-takeover-'));
    writeFileSync(lockPathOf(runDir), JSON.stringify(holder({})));
    const outputs = await race(runDir, 6);
    const winners = outputs.filter((output) => /(^|\n)won /.test(output));
    expect(winners, outputs.join('\n---\n')).toHaveLength(1);
    expect(winners[0]).toMatch(
      /^log took over the lock of .* nonce deadbeef\): that process is no longer running\nwon [0-9a-f]{8}$/,
    );
    for (const output of outputs.filter((o) => o !== winners[0]))
      expect(output).toMatch(/^lost run directory .* is in use by pid \d+/);
  }, 60_000);

  it('takes over the lock of a holder killed but not yet reaped (a zombie, as a container without a reaping init keeps)', async () => {
    if (!existsSync('/proc/self/stat')) return console.log('skipped: no /proc to tell a zombie on this platform');
    // `sleep 0.1` is backgrounded by a shell that then becomes `sleep 30`, which never reaps it: once it exits, it
    // is a zombie for as long as its parent lives, answering signal 0 like a live process.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (data) => resolve(Number(data))));
      const start = processStartOf(pid);
      for (let waited = 0; !hasExited(pid) && waited < 10_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(hasExited(pid), `pid ${pid} did not become a zombie`).toBe(true);
      expect(() => process.kill(pid, 0)).not.toThrow();
      const zombie = holder({ pid, processStart: start });
      expect(holderState(zombie)).toBe('dead');
      const runDir = mkdtempSync(join(tmpdir(), 'stalebench-zombie-'));
      writeFileSync(lockPathOf(runDir), JSON.stringify(zombie));
      const lock = await acquireRunLock(runDir, { nonce: '00000006' });
      expect(lock.takenOver?.pid).toBe(pid);
      lock.release();
      rmSync(runDir, { recursive: true, force: true });
    } finally {
      parent.kill('SIGKILL');
    }
    expect(holderState(holder({ pid: process.pid, processStart: processStartOf(process.pid) }))).toBe('alive');
  });

  it('refuses a live holder in this process, and a holder on another host it cannot check', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'stalebench-live-'));
    const lock = await acquireRunLock(runDir, { nonce: '00000001' });
    const refused = await acquireRunLock(runDir, { nonce: '00000002' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunLockedError);
    expect((refused as Error).message).toBe(
      `run directory ${runDir} is in use by pid ${process.pid} on host ${hostname()} (started ${lock.holder.startedAt}, nonce 00000001); wait for it to finish or stop it`,
    );
    lock.release();
    writeFileSync(lockPathOf(runDir), JSON.stringify(holder({ host: 'elsewhere.example', pid: process.pid })));
    await expect(acquireRunLock(runDir, { nonce: '00000003' })).rejects.toThrow(
      /pid \d+ on host elsewhere\.example .* cannot be checked from host .*; if that process is gone, delete .*eval\.lock/,
    );
  });

  it('waits out a lock file being written, refuses one that stays unreadable, and never releases a lock it does not hold', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'stalebench-unreadable-'));
    writeFileSync(lockPathOf(runDir), '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPathOf(runDir), old, old);
    await expect(acquireRunLock(runDir, { nonce: '00000004' })).rejects.toThrow(
      /is not a readable lock; if no eval runs on it, delete that file/,
    );
    writeFileSync(lockPathOf(runDir), '{"pid": 1'); // fresh and half-written: the taker waits for it
    // The taker's polls run on vitest's clock (its file ages on the real one): ten of them pass, then the holder is
    // written in full and the next poll reads it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let lock: RunLock | undefined;
    try {
      const taking = acquireRunLock(runDir, { nonce: '00000005' }).then((taken) => (lock = taken));
      await vi.advanceTimersByTimeAsync(500);
      expect(lock).toBeUndefined();
      writeFileSync(lockPathOf(runDir), JSON.stringify(holder({})));
      await vi.advanceTimersByTimeAsync(50);
      await taking;
    } finally {
      vi.useRealTimers();
    }
    if (!lock) throw new Error('no lock');
    expect(lock.takenOver?.nonce).toBe('deadbeef');
    writeFileSync(lockPathOf(runDir), JSON.stringify(holder({ nonce: '0000000f', pid: process.pid })));
    lock.release();
    expect(readRunLock(runDir)).toMatchObject({ nonce: '0000000f' });
    expect(JSON.parse(readFileSync(lockPathOf(runDir), 'utf8')).nonce).toBe('0000000f');
  });
});
