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
    expect(readSuiteRecords(first.suite, runDir).get('a')).toMatchObject({
      unitId: 'a',
      status: 'ok',
      note: 'built [redacted]',
    });
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
    expect(result).toEqual({ total: 5, ran: 1, skippedAsDone: 4 });
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

describe('runSuiteUnits, retries and lazy plans', () => {
  /** A plan made as it is pulled: counts how often it is walked, so a test sees it is never copied whole. */
  function lazyPlan(size: number) {
    let walks = 0;
    let made = 0;
    const plan: Iterable<Unit> = {
      *[Symbol.iterator]() {
        walks += 1;
        for (let i = 0; i < size; i += 1) {
          made += 1;
          yield { id: `u${i}`, cell: 'x', stage: i % 3 === 0 ? 1 : 0 };
        }
      },
    };
    return { plan, walks: () => walks, made: () => made };
  }

  it('runs a lazy plan walked once to count and once per stage, in plan order within a stage', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    const { suite, setup } = suiteOf(events, { failing: new Set() });
    const lazy = lazyPlan(9);
    const result = await runSuiteUnits(suite, {
      runDir,
      units: lazy.plan,
      setup,
      concurrency: 1,
      signal: new AbortController().signal,
      redact,
      log: quiet,
    });
    expect(result).toEqual({ total: 9, ran: 9, skippedAsDone: 0 });
    expect(lazy.walks()).toBe(3);
    expect(events.filter((event) => event.startsWith('start'))).toEqual(
      ['u1', 'u2', 'u4', 'u5', 'u7', 'u8', 'u0', 'u3', 'u6'].map((id) => `start ${id}`),
    );
  });

  it('refuses a one-shot iterator for a plan (its second walk would be empty), before any unit runs', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    const { suite, setup } = suiteOf(events, { failing: new Set() });
    function* once(): Generator<Unit> {
      for (let i = 0; i < 4; i += 1) yield { id: `u${i}`, cell: 'x' };
    }
    const options = { runDir, setup, concurrency: 1, signal: new AbortController().signal, redact, log: quiet };
    await expect(runSuiteUnits(suite, { ...options, units: once() })).rejects.toThrow(/one-shot iterator/);
    await expect(
      runSuiteUnits(suite, { ...options, units: [1, 2].map((i) => ({ id: `u${i}`, cell: 'x' })).values() }),
    ).rejects.toThrow(/one-shot iterator/);
    expect(events).toEqual([]);
  });

  it('runs a unit whose record retryOnce names once more at the end, its new line winning; ran counts it once', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    let attempts = 0;
    const base = suiteOf(events, { failing: new Set() });
    // b fails on its first attempt only (a transient failure); c fails both times (it is retried once, not twice).
    const suite = {
      ...base.suite,
      retryOnce: (line: Line) => line.status === 'error',
      async runUnit(unit: Unit, context: Parameters<typeof base.suite.runUnit>[1]) {
        const line = await base.suite.runUnit(unit, context);
        if (unit.id === 'b') attempts += 1;
        const fails = (unit.id === 'b' && attempts === 1) || unit.id === 'c';
        return fails ? { ...line, status: 'error' as const } : line;
      },
    };
    const progress: { id: string; retried: boolean; done: number }[] = [];
    const result = await runSuiteUnits(suite, {
      runDir,
      units,
      setup: base.setup,
      concurrency: 1,
      signal: new AbortController().signal,
      redact,
      log: quiet,
      onUnit: (line, at) => progress.push({ id: line.unitId, retried: at.retried, done: at.done }),
    });
    expect(result).toEqual({ total: 5, ran: 5, skippedAsDone: 0 });
    // The retries come after every stage, in plan order.
    expect(progress.slice(5)).toEqual([
      { id: 'b', retried: true, done: 5 },
      { id: 'c', retried: true, done: 5 },
    ]);
    expect(progress.slice(0, 5).every((entry) => !entry.retried)).toBe(true);
    const stored = readSuiteRecords(suite, runDir);
    expect(stored.get('b')?.status).toBe('ok');
    expect(stored.get('c')?.status).toBe('error');
    expect(readFileSync(join(runDir, 'lines.jsonl'), 'utf8').trim().split('\n')).toHaveLength(7);
  });

  it('hands remember every stored record in file order, then each written one (redacted)', async () => {
    const runDir = newRunDir();
    const { suite, setup } = suiteOf([]);
    const signal = new AbortController().signal;
    await runSuiteUnits(suite, { runDir, units: units.slice(0, 2), setup, concurrency: 1, signal, redact, log: quiet });
    const seen: string[] = [];
    await runSuiteUnits(suite, {
      runDir,
      units,
      setup,
      concurrency: 1,
      retryErrors: true,
      signal,
      redact,
      log: quiet,
      remember: (line) => seen.push(`${line.unitId} ${line.status} ${line.note}`),
    });
    expect(seen).toEqual([
      'a ok built [redacted]',
      'b error built [redacted]',
      'b error built [redacted]',
      'c ok built [redacted]',
      'late-1 ok built [redacted]',
      'late-2 ok built [redacted]',
    ]);
  });
});

describe('runSuiteUnits, groups', () => {
  type GroupUnit = SuiteUnit & { fail?: boolean };
  const grouped: GroupUnit[] = [
    { id: 'a1', cell: 'a', group: 'a' },
    { id: 'b1', cell: 'b', group: 'b' },
    { id: 'a2', cell: 'a', group: 'a' },
    { id: 'b2', cell: 'b', group: 'b', fail: true },
  ];

  /** A suite whose groups log when they open and close, and which units ran inside which group's `run`. */
  function groupSuite(events: string[], options: { refuse?: string } = {}) {
    const suite: Pick<
      SuiteV1<unknown, GroupUnit, Line, unknown, undefined, string>,
      'id' | 'records' | 'openGroup' | 'runUnit'
    > = {
      id: 'grouped',
      records: { file: 'grouped.jsonl', unitOf: (line) => line.unitId },
      async openGroup(name, pending) {
        if (name === options.refuse) throw new Error(`group ${name} cannot open`);
        events.push(`open ${name} for ${pending.map((unit) => unit.id).join(',')}`);
        return {
          shared: `store-${name}`,
          concurrency: 1,
          run: (unit, work) => {
            events.push(`enter ${unit.id}`);
            return work();
          },
          close: async () => {
            events.push(`close ${name}`);
          },
        };
      },
      async runUnit(unit, { group }) {
        events.push(`run ${unit.id} on ${group}`);
        if (unit.fail) throw new Error(`unit ${unit.id} broke`);
        return { unitId: unit.id, status: 'ok', note: '' };
      },
    };
    return suite;
  }

  const options = (runDir: string) => ({
    runDir,
    units: grouped,
    setup: async () => undefined,
    concurrency: 4,
    signal: new AbortController().signal,
    redact,
    log: quiet,
  });

  it('opens a group before its first unit, runs its units inside it, closes it after its last, even on a failure', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    await expect(runSuiteUnits(groupSuite(events), options(runDir))).rejects.toThrow('unit b2 broke');
    expect(events).toEqual([
      'open a for a1,a2',
      'enter a1',
      'run a1 on store-a',
      'enter a2',
      'run a2 on store-a',
      'close a',
      'open b for b1,b2',
      'enter b1',
      'run b1 on store-b',
      'enter b2',
      'run b2 on store-b',
      'close b',
    ]);
    // What ran before the failure is recorded; the failed unit is not.
    expect([...readSuiteRecords(groupSuite([]), runDir).keys()]).toEqual(['a1', 'a2', 'b1']);
  });

  it('ends the run when a group cannot open, running none of its units, and opens only groups with pending units', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    await expect(runSuiteUnits(groupSuite(events, { refuse: 'b' }), options(runDir))).rejects.toThrow(
      'group b cannot open',
    );
    expect(events.filter((event) => event.includes('b'))).toEqual([]);
    const again: string[] = [];
    await expect(
      runSuiteUnits(groupSuite(again), { ...options(runDir), units: grouped.filter((unit) => !unit.fail) }),
    ).resolves.toMatchObject({ ran: 1, skippedAsDone: 2 });
    expect(again).toEqual(['open b for b1', 'enter b1', 'run b1 on store-b', 'close b']);
  });

  it('opens no group after a stop', async () => {
    const runDir = newRunDir();
    const events: string[] = [];
    const stop = new AbortController();
    await runSuiteUnits(groupSuite(events), { ...options(runDir), signal: stop.signal, onUnit: () => stop.abort() });
    expect(events.filter((event) => event.startsWith('open'))).toEqual(['open a for a1,a2']);
    expect(events).toContain('close a');
  });
});
