// The one runner (issue #27 item 2): its steps in order for any kind of run, a dry run that writes nothing, a refused
// confirmation that opens nothing, and a directory released (end recorded) whether the run returns or throws.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeJsonAtomic } from '../run-log/json-files.js';
import { RUN_LOG_VERSION, type RunInvocation } from '../run-log/run-log.js';
import { runThrough, type RunnerKind } from './runner.js';
import { spawnEval } from '../test-support/spawn-eval.js';

const root = mkdtempSync(join(tmpdir(), 'runner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Manifest {
  version: number;
  status: string;
  invocations: RunInvocation[];
}

/** A kind that records each step it is asked for, and writes a manifest naming the invocation when it runs. */
function recordingKind(runDir: string, behaviour: { refuse?: boolean; fail?: boolean } = {}) {
  const steps: string[] = [];
  const kind: RunnerKind<{ units: string[] }, string[], Manifest, string> = {
    async prepare() {
      steps.push('prepare');
      return { units: ['a', 'b'] };
    },
    runDir: () => runDir,
    async plan(prepared, dryRun) {
      steps.push(`plan${dryRun ? ' (dry run)' : ''}`);
      return prepared.units;
    },
    async confirm() {
      steps.push('confirm');
      if (behaviour.refuse) throw new Error('not confirmed');
    },
    directory() {
      steps.push('directory');
      return { admit: () => steps.push('admit') };
    },
    async run(prepared, directory) {
      steps.push(`run (lock held: ${existsSync(join(runDir, 'eval.lock'))})`);
      const status = behaviour.fail ? 'started' : 'success';
      writeJsonAtomic(join(runDir, 'manifest.json'), {
        version: RUN_LOG_VERSION,
        status,
        invocations: [directory.invocation],
      });
      directory.written();
      if (behaviour.fail) throw new Error('unit failed');
      return `ran ${prepared.units.join(',')}`;
    },
  };
  return { kind, steps };
}

const silent = () => undefined;

describe('the runner', () => {
  it('carries a run through prepare → plan → confirm → directory → run, holding the lock only while it runs', async () => {
    const runDir = join(root, 'whole');
    const { kind, steps } = recordingKind(runDir);
    const result = await runThrough(kind, { dryRun: false, log: silent });
    expect(result).toEqual({ dryRun: false, runDir, outcome: 'ran a,b' });
    expect(steps).toEqual(['prepare', 'plan', 'confirm', 'directory', 'admit', 'run (lock held: true)']);
    expect(existsSync(join(runDir, 'eval.lock'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.invocations.map((entry) => entry.ended?.status)).toEqual(['success']);
  });

  it('ends a dry run with its plan before anything is confirmed, opened or written', async () => {
    const runDir = join(root, 'dry');
    const { kind, steps } = recordingKind(runDir);
    const result = await runThrough(kind, { dryRun: true, log: silent });
    expect(result).toMatchObject({ dryRun: true, runDir, plan: ['a', 'b'] });
    expect(steps).toEqual(['prepare', 'plan (dry run)']);
    expect(existsSync(runDir)).toBe(false);
  });

  it('opens nothing when the confirmation refuses', async () => {
    const runDir = join(root, 'refused');
    const { kind, steps } = recordingKind(runDir, { refuse: true });
    await expect(runThrough(kind, { dryRun: false, log: silent })).rejects.toThrow('not confirmed');
    expect(steps).toEqual(['prepare', 'plan', 'confirm']);
    expect(existsSync(runDir)).toBe(false);
  });

  it('releases the directory and records the end as an exception when the run throws', async () => {
    const runDir = join(root, 'thrown');
    const { kind } = recordingKind(runDir, { fail: true });
    await expect(runThrough(kind, { dryRun: false, log: silent })).rejects.toThrow('unit failed');
    expect(existsSync(join(runDir, 'eval.lock'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.invocations.map((entry) => entry.ended?.status)).toEqual(['exception']);
    // The next invocation finds the directory free and its manifest readable.
    const again = recordingKind(runDir);
    await expect(runThrough(again.kind, { dryRun: false, log: silent })).resolves.toMatchObject({ outcome: 'ran a,b' });
  });

  // Node's recursive mkdir never returns under /proc: it retries the parent in a loop no signal interrupts, so this
  // runs as a child process killed after 60 s (a regression fails here instead of hanging the suite).
  it.skipIf(!existsSync('/proc/self'))(
    'refuses, at once, a run directory that cannot be created, naming it',
    async () => {
      const args = '--model sim --systems graphiti --modes direct --arms none -o /proc/stalebench-no-such';
      const child = spawnEval(args.split(' '), {});
      const killer = setTimeout(() => child.child.kill('SIGKILL'), 60_000);
      const code = await child.exited;
      clearTimeout(killer);
      expect(code, child.stderr()).toBe(1);
      expect(child.stderr()).toMatch(/error: invalid \/proc\/stalebench-no-such\/\S+:\n.*cannot be created: ENOENT/);
    },
    90_000,
  );
});
