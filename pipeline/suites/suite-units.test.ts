// The units of a suite (suite-units.ts): stages, a suite's own records file, --retry-errors, the scratch directory,
// the setup only when something runs, and redaction of what is written.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../run/redact.js';
import type { SuiteUnit, SuiteV1 } from '../run/suite.js';
import { readSuiteRecords, runSuiteUnits } from './suite-units.js';

interface Line {
  unitId: string;
  status: 'ok' | 'error';
  note: string;
}

type Unit = SuiteUnit & { fail?: boolean };

const units: Unit[] = [
  { id: 'a', cell: 'x' },
  { id: 'b', cell: 'x', fail: true },
  { id: 'c', cell: 'y' },
  { id: 'late-1', cell: 'z', stage: 1 },
  { id: 'late-2', cell: 'z', stage: 1 },
];

/** A suite with its own records file, counting setups and recording the order units start and end in. */
function suiteOf(events: string[], options: { failing?: Set<string>; touchWorkDir?: boolean } = {}) {
  let setups = 0;
  const suite: Pick<SuiteV1<unknown, Unit, Line, unknown, string>, 'id' | 'records' | 'rerun' | 'runUnit'> = {
    id: 'lines',
    records: { file: 'lines.jsonl', unitOf: (line) => line.unitId },
    rerun: (line) => line.status === 'error',
    async runUnit(unit, context) {
      events.push(`start ${unit.id}`);
      if (options.touchWorkDir) expect(existsSync(context.workDir)).toBe(true);
      // Stage-0 units end out of order: the slow one is still running when the others are recorded.
      await new Promise((resolve) => setTimeout(resolve, unit.id === 'a' ? 30 : 1));
      events.push(`end ${unit.id}`);
      const failing = options.failing ?? new Set(['b']);
      return {
        unitId: unit.id,
        status: failing.has(unit.id) ? 'error' : 'ok',
        note: `${context.setup} sk-live-abcdefghijklmnopqrstuvwxyz012345`,
      };
    },
  };
  return {
    suite,
    setups: () => setups,
    setup: async () => {
      setups += 1;
      return 'built';
    },
  };
}

const quiet = () => {};

/** A run directory as the runner opens it: a manifest naming the run id the chain is bound to. */
function newRunDir(): string {
  const runDir = mkdtempSync(join(tmpdir(), 'suite-units-'));
  writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ runId: 'lines_test' }));
  return runDir;
}
const redact = createRedactor(['sk-live-abcdefghijklmnopqrstuvwxyz012345']);

describe('runSuiteUnits', () => {
  it('starts a later stage only once every unit of the earlier stages is recorded', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    const { suite, setup } = suiteOf(events);
    const signal = new AbortController().signal;
    await runSuiteUnits(suite, { runDir, units, setup, concurrency: 4, signal, redact, log: quiet });
    const lastEarly = Math.max(...['a', 'b', 'c'].map((id) => events.indexOf(`end ${id}`)));
    const firstLate = Math.min(...['late-1', 'late-2'].map((id) => events.indexOf(`start ${id}`)));
    expect(lastEarly).toBeLessThan(firstLate);
    // Concurrency holds inside a stage: b and c started before a (the slow one) ended.
    expect(events.indexOf('start c')).toBeLessThan(events.indexOf('end a'));
  });

  it("writes a suite's own records, redacted, in its own file; resume runs nothing and builds no setup", async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    const first = suiteOf(events);
    const signal = new AbortController().signal;
    const result = await runSuiteUnits(first.suite, {
      runDir,
      units,
      setup: first.setup,
      concurrency: 2,
      signal,
      redact,
      log: quiet,
    });
    expect(result.ran).toBe(5);
    expect(readdirSync(runDir).sort()).toEqual(['lines.jsonl', 'manifest.json']);
    const text = readFileSync(join(runDir, 'lines.jsonl'), 'utf8');
    expect(text).not.toContain('sk-live-');
    expect(text.trim().split('\n')).toHaveLength(5);
    expect(result.records.get('a')).toMatchObject({ unitId: 'a', status: 'ok', note: 'built [redacted]' });
    expect([...readSuiteRecords(first.suite, runDir).keys()].sort()).toEqual(units.map((u) => u.id).sort());

    const again = suiteOf([]);
    const resumed = await runSuiteUnits(again.suite, {
      runDir,
      units,
      setup: again.setup,
      concurrency: 2,
      signal,
      redact,
      log: quiet,
    });
    expect({ ran: resumed.ran, skipped: resumed.skippedAsDone, setups: again.setups() }).toEqual({
      ran: 0,
      skipped: 5,
      setups: 0,
    });
  });

  it('runs a recorded error again only with retryErrors, and its new record wins', async () => {
    const runDir = newRunDir();
    const signal = new AbortController().signal;
    const first = suiteOf([]);
    await runSuiteUnits(first.suite, { runDir, units, setup: first.setup, concurrency: 1, signal, redact, log: quiet });
    const without: string[] = [];
    const plain = suiteOf(without, { failing: new Set() });
    await runSuiteUnits(plain.suite, { runDir, units, setup: plain.setup, concurrency: 1, signal, redact, log: quiet });
    expect(without).toEqual([]);
    const retried: string[] = [];
    const retry = suiteOf(retried, { failing: new Set() });
    const result = await runSuiteUnits(retry.suite, {
      runDir,
      units,
      setup: retry.setup,
      concurrency: 1,
      retryErrors: true,
      signal,
      redact,
      log: quiet,
    });
    expect(retried).toEqual(['start b', 'end b']);
    expect(result.records.get('b')?.status).toBe('ok');
    expect(readSuiteRecords(retry.suite, runDir).get('b')?.status).toBe('ok');
  });

  it('starts no unit of a later stage after a stop', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    const { suite, setup } = suiteOf(events);
    const stop = new AbortController();
    const result = await runSuiteUnits(suite, {
      runDir,
      units,
      setup,
      concurrency: 4,
      signal: stop.signal,
      redact,
      log: quiet,
      onUnit: () => stop.abort(),
    });
    expect(events.filter((event) => event.includes('late'))).toEqual([]);
    expect(result.ran).toBeLessThan(units.length);
  });

  it('makes a scratch directory only for a unit that reads it, and removes it once the unit is recorded', async () => {
    const runDir = newRunDir();
    const { suite, setup } = suiteOf([], { touchWorkDir: true });
    const signal = new AbortController().signal;
    await runSuiteUnits(suite, { runDir, units, setup, concurrency: 2, signal, redact, log: quiet });
    expect(readdirSync(runDir).sort()).toEqual(['lines.jsonl', 'manifest.json']);
  });
});
