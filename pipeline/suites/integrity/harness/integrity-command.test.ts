import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './integrity-command.js';
import { cannotReopenTarget, noOpEditTarget, unorderedTarget } from './test-support/faulty-targets.js';

const out = mkdtempSync(join(tmpdir(), 'integrity-command-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const extraTargets = {
  'test-noop-edit': async () => noOpEditTarget(),
  'test-cannot-reopen': async () => cannotReopenTarget(),
  'test-unordered': async () => unorderedTarget(),
};

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const dir = mkdtempSync(join(out, 'run-'));
  const code = await main(
    [...argv, '-o', dir],
    { write: (chunk: string) => stdout.push(chunk) },
    { write: (chunk: string) => stderr.push(chunk) },
    env,
    { extraTargets, now: () => new Date('2026-12-01T10:00:00Z') },
  );
  return { code, stdout: stdout.join(''), stderr: stderr.join(''), dir };
}

describe('pnpm integrity', () => {
  it('--target reference --json: T1–T8 rejected at read, metric 1.0, T9 rejected with the witness, exit 0', async () => {
    const { code, stdout, dir } = await run(['--target', 'reference', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as {
      targets: {
        id: string;
        version: string;
        config: Record<string, string>;
        cells: {
          edit: string;
          verdict: string;
          detection: string | null;
          reason: string;
          attack: string;
          controls: Record<string, { ok: boolean }>;
        }[];
        metric: { value: number };
      }[];
    };
    expect(Object.keys(result)).toEqual(['targets']);
    const [target] = result.targets;
    expect(Object.keys(target ?? {})).toEqual(['id', 'version', 'config', 'cells', 'metric']);
    expect(target?.cells.map((cell) => [cell.edit, cell.verdict, cell.detection, cell.attack])).toEqual(
      ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9'].map((edit) => [edit, 'rejected', 'read', `${edit}@v1`]),
    );
    for (const cell of target?.cells ?? []) {
      expect(cell.reason).toMatch(/^refused to open the store: IntegrityViolationError: /);
      expect([cell.controls.c1?.ok, cell.controls.c2?.ok, cell.controls.c3?.ok]).toEqual([true, true, true]);
    }
    expect(target?.metric.value).toBe(1);
    for (const file of ['integrity.json', 'integrity.md', 'scorecard.md', 'scorecard.html'])
      expect(readFileSync(join(dir, file), 'utf8').length).toBeGreaterThan(100);
    expect(readFileSync(join(dir, 'integrity.md'), 'utf8')).toContain('file store/records.jsonl: replace line 3 with');
  });

  it('without the off-store witness T9 is accepted, so the check fails with exit 1 (0 under --fail-on none)', async () => {
    const failing = await run(['--target', 'reference-no-witness', '--edits', 'T9', '--json']);
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout).targets[0].cells[0]).toMatchObject({
      edit: 'T9',
      verdict: 'accepted',
      detection: null,
      reason: null,
    });
    expect((await run(['--target', 'reference-no-witness', '--edits', 'T9', '--fail-on', 'none'])).code).toBe(0);
  });

  it('a no-op edit fails C3: an error cell, never a verdict, and exit 3 even beside an evaluated cell', async () => {
    const { code, stdout } = await run(['--target', 'test-noop-edit', '--edits', 'T1,T2', '--json']);
    expect(code).toBe(3);
    const [t1, t2] = JSON.parse(stdout).targets[0].cells;
    expect(t1).toMatchObject({ edit: 'T1', verdict: 'error', detection: null, controls: { c3: { ok: false } } });
    expect(t1.reason).toMatch(/^C3 failed: the edit did not land as intended: the content of A:2 is unchanged/);
    expect(t1.commands).toHaveLength(1); // the edit ran and logged its command; it just changed nothing
    expect(t2).toMatchObject({ edit: 'T2', verdict: 'rejected' });
  });

  it('a target that cannot reopen its own store: every cell not evaluable (C1), no metric, exit 2', async () => {
    const { code, stdout } = await run(['--target', 'test-cannot-reopen', '--edits', 'T1,T5', '--json']);
    expect(code).toBe(2);
    const target = JSON.parse(stdout).targets[0];
    for (const cell of target.cells) {
      expect(cell).toMatchObject({ verdict: 'not-evaluable', controls: { c1: { ok: false }, c2: { ok: true } } });
      expect(cell.reason).toContain('store is locked by a previous process');
    }
    expect(target.metric.value).toBeNull();
    expect(target.metric.reason).toMatch(/control failed/);
  });

  it('precedence 2 > 3 > 1: an error cell beside an accepted one exits 3; nothing evaluated anywhere exits 2', async () => {
    expect((await run(['--target', 'test-noop-edit,reference-no-witness', '--edits', 'T1,T9'])).code).toBe(3);
    expect((await run(['--target', 'test-cannot-reopen', '--edits', 'T1'])).code).toBe(2);
  });

  it('an unordered key-value store: T2, T4 and T8 are n/a with the reason and leave the denominator', async () => {
    const { code, stdout } = await run(['--target', 'test-unordered', '--edits', 'T1,T2,T3,T4,T5,T6,T7,T8', '--json']);
    expect(code).toBe(0);
    const target = JSON.parse(stdout).targets[0];
    expect(
      target.cells
        .filter((cell: { verdict: string }) => cell.verdict === 'n/a')
        .map((cell: { edit: string }) => cell.edit),
    ).toEqual(['T2', 'T4', 'T8']);
    expect(target.cells[1].reason).toMatch(/not applicable \(integrity.md §6\): test store/);
    expect(target.metric).toMatchObject({ value: 1, n: 5, t9: null });
  });

  it('bad flags: exit 1 naming every problem, nothing run', async () => {
    const { code, stderr, stdout } = await run([
      '--target',
      'nope,reference',
      '--edits',
      'T1,T10,T3:unrevoke',
      '--fail-on',
      'maybe',
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('unknown target "nope"; available: reference');
    expect(stderr).toContain('"T10" is not one of T1');
    expect(stderr).toContain('"T3:unrevoke": T3 has no variant unrevoke');
    expect(stderr).toContain('--fail-on: "maybe" is not accepted, none or "[field=value …] <metric>[.low] > <number>"');
    expect((await run([])).stderr).toContain('--target: required');
  });

  it('under CI: one annotation per ACCEPTED edit', async () => {
    const { stdout } = await run(['--target', 'reference-no-witness', '--edits', 'T8,T9'], { CI: 'true' });
    expect(stdout).toContain('::error title=integrity reference-no-witness T9@v1::accepted');
    expect(stdout).not.toContain('T8@v1::');
  });
});
