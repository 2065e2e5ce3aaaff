import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingPrerequisiteError } from '#core/errors.js';
import { INSPEXIMUS_PIN } from '../inspeximus-version.js';
import { inspeximusSkipReason, ROOT } from '../test-support/python-memory.js';
import { createPythonMemoryProcess } from './python-memory-process.js';
import { StoreProcessError } from './store-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'python-memory-process-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const skip = await inspeximusSkipReason();
const steps = (texts: string[]) => texts.map((text) => ({ remember: { text, valid_from: 1_790_000_000 } }));
const client = (workDir: string, root = ROOT, pin: { name: string; version: string } = INSPEXIMUS_PIN) =>
  createPythonMemoryProcess({
    system: 'inspeximus',
    adapter: 'inspeximus_memory',
    pin,
    root,
    workDir: join(scratch, workDir),
  });
const stopped = async (pid: number | undefined) => {
  if (pid === undefined) throw new Error('no live process');
  process.kill(pid, 'SIGSTOP');
};

describe('a Python memory system that cannot start', () => {
  it('no venv: open rejects naming the package, the venv and the install command', async () => {
    const python = client('no-venv', join(scratch, 'empty-root'));
    const error = await python.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingPrerequisiteError);
    expect((error as Error).message).toBe(
      'inspeximus needs the Python package inspeximus==3.23.1 (backends/python/requirements.txt, in .cache/python/venv): no Python venv at .cache/python/venv: run bash .ci/install, or python3 -m venv .cache/python/venv && .cache/python/venv/bin/pip install -r backends/python/requirements.txt',
    );
    await python.close();
  });

  it('a venv without the package: open rejects with the import error', async () => {
    const fakeRoot = join(scratch, 'no-package');
    mkdirSync(join(fakeRoot, '.cache', 'python', 'venv', 'bin'), { recursive: true });
    symlinkSync(
      execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim(),
      join(fakeRoot, '.cache', 'python', 'venv', 'bin', 'python'),
    );
    symlinkSync(join(ROOT, 'backends'), join(fakeRoot, 'backends'));
    if (
      spawnSync(join(fakeRoot, '.cache', 'python', 'venv', 'bin', 'python'), ['-c', 'import inspeximus']).status === 0
    )
      return console.log('[python memory] skipped: the system python3 has inspeximus');
    await expect(client('no-package', fakeRoot).open()).rejects.toThrow(
      "inspeximus needs the Python package inspeximus==3.23.1 (backends/python/requirements.txt, in .cache/python/venv): ModuleNotFoundError: No module named 'inspeximus'; run bash .ci/install",
    );
  });

  it('a venv whose Python cannot run: refused naming the package, not a crash', async () => {
    const fakeRoot = join(scratch, 'broken-venv');
    mkdirSync(join(fakeRoot, '.cache', 'python', 'venv', 'bin'), { recursive: true });
    writeFileSync(join(fakeRoot, '.cache', 'python', 'venv', 'bin', 'python'), '#!/bin/sh\nexit 7\n', { mode: 0o755 });
    await expect(client('broken-venv', fakeRoot).open()).rejects.toThrow(
      /^inspeximus needs the Python package inspeximus==3\.23\.1 .*: the venv's Python did not answer \(the store process exited \(code 7/,
    );
  });

  it.skipIf(skip !== null)('a venv holding another version than the pin: refused, naming both', async () => {
    await expect(client('other-version', ROOT, { name: 'inspeximus', version: '0.0.1' }).open()).rejects.toThrow(
      'needs the Python package inspeximus==0.0.1 (backends/python/requirements.txt, in .cache/python/venv): .cache/python/venv holds inspeximus 3.23.1; run bash .ci/install',
    );
  });
});

describe.skipIf(skip !== null)('a Python memory process that dies', () => {
  it('mid-request: the request fails as a process error, never an answer; the namespace is refused until reset', async () => {
    const python = client('mid-request');
    await python.open();
    await python.request('insert', 'ns', { steps: steps(['alpha one']) });
    await stopped(python.pid());
    const pending = python.request('search', 'ns', { query: 'alpha', k: 10, options: { include_superseded: false } });
    process.kill(python.pid()!, 'SIGKILL');
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'python-process-died',
      message: expect.stringMatching(
        /^inspeximus: search on namespace "ns" failed: the store process exited \(code null, signal SIGKILL\) before answering/,
      ),
    });
    expect((error as Error).cause).toBeInstanceOf(StoreProcessError);
    await expect(python.request('search', 'ns', { query: 'alpha', k: 10, options: {} })).rejects.toThrow(
      'inspeximus: the inspeximus process that held namespace "ns" died (code null, signal SIGKILL); what it wrote may be lost, so the namespace is refused until it is reset and seeded again',
    );
    await expect(python.request('list', 'ns')).rejects.toMatchObject({ code: 'python-process-died' });
    // A reset starts a new process; the namespace is then usable, and the restart is reported once.
    await python.reset('ns');
    expect(python.takeNotes()).toEqual([
      {
        type: 'other',
        feature: 'python process',
        message:
          'a new inspeximus process was started after the previous one died; namespaces it had written were refused until reset',
      },
    ]);
    expect(python.takeNotes()).toEqual([]);
    await python.request('insert', 'ns', { steps: steps(['alpha two']) });
    const found = await python.request<{ records: { text: string }[] }>('search', 'ns', {
      query: 'alpha',
      k: 10,
      options: {},
    });
    expect(found.records.map((record) => record.text)).toEqual(['alpha two']);
    await python.close();
  });

  it('between requests: only namespaces the dead process wrote are refused; an untouched one is served by a new process', async () => {
    const python = client('between');
    await python.open();
    await python.request('insert', 'written', { steps: steps(['beta one']) });
    const pid = python.pid()!;
    process.kill(pid, 'SIGKILL');
    await python.exited();
    await expect(python.request('search', 'written', { query: 'beta', k: 10, options: {} })).rejects.toMatchObject({
      code: 'python-process-died',
    });
    expect(
      (await python.request<{ records: unknown[] }>('search', 'untouched', { query: 'beta', k: 10, options: {} }))
        .records,
    ).toEqual([]);
    expect(python.pid()).not.toBe(pid);
    await expect(python.request('insert', 'written', { steps: steps(['beta two']) })).rejects.toMatchObject({
      code: 'python-process-died',
    });
    await python.close();
  });

  it('a clean close keeps what was written: a reopened client serves it', async () => {
    const python = client('reopen');
    await python.open();
    await python.request('insert', 'kept', { steps: steps(['gamma one']) });
    await python.close();
    await python.open();
    const found = await python.request<{ records: { text: string }[] }>('search', 'kept', {
      query: 'gamma',
      k: 10,
      options: {},
    });
    expect(found.records.map((record) => record.text)).toEqual(['gamma one']);
    await python.close();
  });
});
