// runEvalUnits (issue #27 item 2): the one way an experiment of `pnpm eval` runs its suite's units under the run's
// stops. A budget stop and a unit cut short by a stop are not recorded; a full disk ends the run even during a stop;
// every record is redacted, counted in the progress (with the retry mark) and logged when it is an error.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageError } from '#core/errors.js';
import { BudgetExhaustedError } from '../run/budget.js';
import type { UnitOutcome } from '../run/run-control.js';
import type { SuiteUnit } from '../run/suite.js';
import { runEvalUnits } from './eval-units.js';

interface TestRecord {
  unitId: string;
  status: 'ok' | 'error';
  error?: { message: string; status?: number };
  note: string;
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A run context of its own directory; what the run saw is kept in `seen`. */
function runOf(stop = new AbortController()) {
  const runDir = mkdtempSync(join(tmpdir(), 'stalebench-eval-units-'));
  made.push(runDir);
  writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ runId: 'eval-units-test' }));
  const seen = { budget: 0, finished: [] as UnitOutcome[], errors: [] as string[], begun: [] as number[][] };
  const run = {
    spec: { concurrency: 2, retryErrors: false },
    parts: { runDir },
    stops: {
      signal: stop.signal,
      callSignal: stop.signal,
      onBudget: () => {
        seen.budget += 1;
        stop.abort();
      },
      redact: (text: string) => text.replaceAll('sk-secret', '[redacted]'),
    },
    control: {
      begin: (total: number, done: number) => seen.begun.push([total, done]),
      unitFinished: (outcome: UnitOutcome) => seen.finished.push(outcome),
    },
    log: () => {},
    logError: (unitId: string, status: string, message: string | undefined) => {
      if (status === 'error') seen.errors.push(`${unitId}: ${message}`);
    },
  } as unknown as Parameters<typeof runEvalUnits>[0];
  return { run, runDir, seen, stop };
}

const unitsOf = (...ids: string[]): SuiteUnit[] => ids.map((id) => ({ id, cell: 'c' }));
const suiteOf = (runUnit: (unit: SuiteUnit) => Promise<TestRecord>) => ({
  id: 'test',
  records: { file: 'test.jsonl', unitOf: (record: TestRecord) => record.unitId },
  rerun: (record: TestRecord) => record.status === 'error',
  retryOnce: (record: TestRecord) => record.status === 'error' && record.error?.status === 503,
  runUnit,
});
const outcome = (record: TestRecord): UnitOutcome => ({ status: record.status, replies: [], parseFailures: 0 });
const lines = (runDir: string) =>
  existsSync(join(runDir, 'test.jsonl'))
    ? readFileSync(join(runDir, 'test.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as TestRecord)
    : [];

describe('runEvalUnits', () => {
  it('redacts and counts every record, logs an error, and marks the end-of-run retry of an endpoint failure', async () => {
    const { run, runDir, seen } = runOf();
    let tries = 0;
    const suite = suiteOf(async ({ id }) => {
      if (id === 'flaky') tries += 1;
      return id === 'flaky' && tries === 1
        ? { unitId: id, status: 'error', error: { message: 'upstream 503', status: 503 }, note: '' }
        : { unitId: id, status: 'ok', note: `key sk-secret of ${id}` };
    });
    const result = await runEvalUnits(run, suite, {
      units: unitsOf('a', 'flaky'),
      setup: async () => undefined,
      outcome,
    });
    expect(result).toEqual({ total: 2, ran: 2, skippedAsDone: 0 });
    expect(seen.begun).toEqual([[2, 0]]);
    expect(seen.finished.map((o) => [o.status, o.retried ?? false])).toEqual([
      ['ok', false],
      ['error', false],
      ['ok', true],
    ]);
    expect(seen.errors).toEqual(['flaky: upstream 503']);
    const written = lines(runDir);
    expect(written.map((r) => r.note)).toEqual(['key [redacted] of a', '', 'key [redacted] of flaky']);
  });

  it('records nothing of a unit the budget cannot cover, reports the budget stop once, and starts no further unit', async () => {
    const { run, runDir, seen } = runOf();
    const started: string[] = [];
    const suite = suiteOf(async ({ id }) => {
      started.push(id);
      if (id === 'b') throw new BudgetExhaustedError(1, 0.99, 0.05);
      return { unitId: id, status: 'ok', note: '' };
    });
    const run1 = { ...run, spec: { ...run.spec, concurrency: 1 } } as typeof run;
    await runEvalUnits(run1, suite, { units: unitsOf('a', 'b', 'c'), setup: async () => undefined, outcome });
    expect(seen.budget).toBe(1);
    expect(started).toEqual(['a', 'b']);
    expect(lines(runDir).map((r) => r.unitId)).toEqual(['a']);
  });

  it('records nothing of a unit that fails once the run is stopped, but a full disk still ends the run', async () => {
    const stopped = runOf();
    const cut = suiteOf(async ({ id }) => {
      stopped.stop.abort();
      throw new Error(`call of ${id} aborted`);
    });
    await expect(
      runEvalUnits(stopped.run, cut, { units: unitsOf('a'), setup: async () => undefined, outcome }),
    ).resolves.toMatchObject({ ran: 0 });
    expect(lines(stopped.runDir)).toEqual([]);

    const full = runOf();
    const disk = suiteOf(async () => {
      full.stop.abort();
      throw new StorageError('/runs/x/records.jsonl', 'ENOSPC', 'no space left on device');
    });
    await expect(
      runEvalUnits(full.run, disk, { units: unitsOf('a'), setup: async () => undefined, outcome }),
    ).rejects.toBeInstanceOf(StorageError);
  });
});
