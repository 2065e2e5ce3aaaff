// Issue #26 item 3 end to end: a disk that fills up or turns read-only mid-run ends `pnpm eval` with one line naming
// the cause, the file and what to do; no temporary file survives and the lock is released where it can be.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runEvalCli } from './test-support/eval-cli.js';
import { startOpenAICompatibleServer } from './test-support/openai-compatible-server.js';

// The disk is the edge faked here: under `disk.under`, once `disk.failAt` appends to `disk.file` were made, every
// write fails the way Linux fails it (a full disk writes a part of an append, creates a file but not its bytes; a
// read-only one refuses every change). Nothing else is touched.
const disk = vi.hoisted(() => ({
  under: '',
  file: 'records.jsonl',
  failAt: 5,
  appends: 0,
  becomes: 'full' as 'full' | 'read-only',
  state: 'ok' as 'ok' | 'full' | 'read-only',
}));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const inside = (path: unknown) => disk.under !== '' && typeof path === 'string' && path.startsWith(disk.under);
  const failure = (code: 'ENOSPC' | 'EROFS', syscall: string, path?: string) =>
    Object.assign(
      new Error(`${code}: ${code === 'ENOSPC' ? 'no space left on device' : 'read-only file system'}, ${syscall}`),
      { code, errno: code === 'ENOSPC' ? -28 : -30, syscall, ...(path ? { path } : {}) },
    );
  const refuseIfReadOnly = (path: unknown, syscall: string) => {
    if (inside(path) && disk.state === 'read-only') throw failure('EROFS', syscall, String(path));
  };
  const writes = (flags: unknown) => typeof flags === 'string' && /[wa+]/.test(flags);
  const faked = {
    ...fs,
    appendFileSync(...args: Parameters<typeof fs.appendFileSync>) {
      const [path, data] = args;
      if (inside(path) && String(path).endsWith(disk.file) && disk.state === 'ok' && ++disk.appends >= disk.failAt)
        disk.state = disk.becomes;
      refuseIfReadOnly(path, 'open');
      if (inside(path) && disk.state === 'full') {
        fs.appendFileSync(path, String(data).slice(0, 40));
        throw failure('ENOSPC', 'write');
      }
      return fs.appendFileSync(...args);
    },
    writeFileSync(...args: Parameters<typeof fs.writeFileSync>) {
      const [path] = args;
      refuseIfReadOnly(path, 'open');
      if (inside(path) && disk.state === 'full') {
        fs.writeFileSync(path, '');
        throw failure('ENOSPC', 'write');
      }
      return fs.writeFileSync(...args);
    },
    openSync(...args: Parameters<typeof fs.openSync>) {
      if (writes(args[1])) refuseIfReadOnly(args[0], 'open');
      return fs.openSync(...args);
    },
    mkdirSync(...args: Parameters<typeof fs.mkdirSync>) {
      if (!fs.existsSync(args[0])) refuseIfReadOnly(args[0], 'mkdir');
      return fs.mkdirSync(...args);
    },
    renameSync(...args: Parameters<typeof fs.renameSync>) {
      refuseIfReadOnly(args[1], 'rename');
      return fs.renameSync(...args);
    },
    unlinkSync(...args: Parameters<typeof fs.unlinkSync>) {
      refuseIfReadOnly(args[0], 'unlink');
      return fs.unlinkSync(...args);
    },
    rmSync(...args: Parameters<typeof fs.rmSync>) {
      if (fs.existsSync(args[0])) refuseIfReadOnly(args[0], 'rm');
      return fs.rmSync(...args);
    },
    truncateSync(...args: Parameters<typeof fs.truncateSync>) {
      refuseIfReadOnly(args[0], 'open');
      return fs.truncateSync(...args);
    },
  };
  return { ...faked, default: faked };
});

afterEach(() => {
  Object.assign(disk, { under: '', file: 'records.jsonl', failAt: 5, appends: 0, becomes: 'full', state: 'ok' });
});

const args = (out: string) => [
  '--model',
  'sim',
  '--systems',
  'graphiti',
  '--modes',
  'direct',
  '--trials',
  '1',
  '--out',
  out,
  '--cache-dir',
  join(out, 'cache'),
];
const runDirOf = (out: string) => {
  const name = readdirSync(out).find((entry) => entry.startsWith('sim_'));
  return join(out, name!);
};
const temporaries = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp'));
const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

describe('a disk that fills up', () => {
  it.each(['setup.jsonl', 'records.jsonl'])(
    'while writing %s: one last line naming ENOSPC, the file and what to do; no temp file; lock released; the same command resumes',
    async (file) => {
      const out = mkdtempSync(join(tmpdir(), 'stalebench-full-'));
      Object.assign(disk, { under: out, file, failAt: 3, becomes: 'full' });
      const full = await runEvalCli(args(out), {});
      expect(full.code).toBe(1);
      const runDir = runDirOf(out);
      expect(lastLine(full.stderr)).toBe(
        `error: cannot write ${join(runDir, file)}: no space left on device (ENOSPC). Free space on that file system and re-run the same command to resume, or give --out on another disk (a new run).`,
      );
      expect(full.stderr).not.toMatch(/suppressed|\n\s+at /i);
      expect(temporaries(runDir)).toEqual([]);
      expect(existsSync(join(runDir, 'eval.lock'))).toBe(false);

      // Space is freed; a temp file a killed write left behind is removed by the resume.
      disk.state = 'ok';
      disk.under = '';
      writeFileSync(join(runDir, 'manifest.json.0badc0de.tmp'), '');
      const resumed = await runEvalCli(args(out), {});
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain('manifest.json.0badc0de.tmp');
      expect(temporaries(runDir)).toEqual([]);
      expect(existsSync(join(runDir, 'eval.lock'))).toBe(false);
      const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as {
        status: string;
        counts: { units: number; done: number };
      };
      expect(manifest.status).toBe('success');
      expect(manifest.counts.done).toBe(manifest.counts.units);
    },
    60_000,
  );
});

describe('a disk remounted read-only', () => {
  it('ends with one line naming EROFS and the file, and says the lock it could not remove is taken over', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-readonly-'));
    Object.assign(disk, { under: out, file: 'records.jsonl', failAt: 3, becomes: 'read-only' });
    const result = await runEvalCli(args(out), {});
    expect(result.code).toBe(1);
    const runDir = runDirOf(out);
    expect(lastLine(result.stderr)).toBe(
      `error: cannot write ${join(runDir, 'records.jsonl')}: read-only file system (EROFS). Remount that file system read-write and re-run the same command to resume, or give --out on another disk (a new run). ${join(runDir, 'eval.lock')} could not be removed (EROFS); the next run takes it over.`,
    );
    expect(result.stderr).not.toMatch(/suppressed|\n\s+at /i);
    expect(temporaries(runDir)).toEqual([]);
  }, 60_000);
});

describe('a full disk under the response cache', () => {
  // Every suite's unit catch rethrows a disk failure: it stops the run with the cache line, never a unit's error.
  it.each([
    ['the grid', ['--systems', 'graphiti', '--modes', 'direct', '--arms', 'none']],
    ['a follow-up (writeback)', ['--experiment', 'writeback', '--systems', 'graphiti', '--hops', '1']],
    ['forged reasoning', ['--experiment', 'forged-reasoning', '--forgeries', 'basic', '--attacker-model', 'off']],
  ])(
    '%s: one last line naming the cache file and --cache-dir, no unit recorded as an error',
    async (_, suite) => {
      const server = await startOpenAICompatibleServer(() => ({ content: '{"action": "NONE", "reason": "test"}' }));
      try {
        const out = mkdtempSync(join(tmpdir(), 'stalebench-full-cache-'));
        const cache = join(out, 'cache');
        Object.assign(disk, { under: cache, state: 'full' });
        const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test-key', CI: 'true' };
        const result = await runEvalCli(
          ['--model', 'gpt-5-nano', '--yes', ...suite, '--trials', '1', '-j', '1', '--out', out, '--cache-dir', cache],
          env,
        );
        expect(result.code, result.stderr).toBe(1);
        expect(lastLine(result.stderr)).toMatch(
          new RegExp(
            `^error: cannot write ${cache}/\\S+: no space left on device \\(ENOSPC\\)\\. .*--cache-dir on another disk`,
          ),
        );
        expect(result.stderr).not.toMatch(/suppressed|\n\s+at /i);
        const runDir = join(out, readdirSync(out).find((entry) => entry !== 'cache')!);
        const logs = readdirSync(runDir).filter((name) => name.endsWith('.jsonl'));
        for (const log of logs) expect(readFileSync(join(runDir, log), 'utf8'), log).not.toContain('"status":"error"');
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});
