import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../backends/memory-backend.js';
import { specFromArgs } from '../../pipeline/cli/cli.js';
import type { ProbeRecord, RunManifest, UnitRecord } from '../../pipeline/run-log/run-log.js';
import { runEvaluation } from '../../pipeline/run/run.js';
import { POLICY_SCENARIO_IDS } from '../../scenarios/index.js';
import { guardMetricsUnder, rescoreGuard } from './guard-rescore.js';
import { loadRun, type LoadedRun } from '../load-run.js';
import type { Summary } from './summarize.js';

// A hand-checked read (stale-retrieval.md §10): r0 is revoked by its backend field and carries no timestamp; r2 and r3
// share a subject (containment 0.75) with no opposition signal; r1 shares nothing with either.
const record = (id: string, text: string, fields: MemoryRecord['fields'] = {}): MemoryRecord => ({
  id,
  text,
  fields: { fact: text, ...fields },
});
const r0 = record('r0', 'All TOR logins must be blocked.', { expired_at: '2025-01-01T00:00:00Z' });
const r1 = record('r1', 'TOR logins with anomalies are monitored, not blocked.', {
  created_at: '2025-01-01T00:00:00Z',
});
const r2 = record('r2', 'Support hours are 9am to 6pm.', { created_at: '2024-06-01T00:00:00Z' });
const r3 = record('r3', 'Support hours are 9am to 5pm on weekends.', { created_at: '2025-06-01T00:00:00Z' });
const now = '2026-01-01T00:00:00.000Z';

function syntheticRun(): LoadedRun {
  const probe: ProbeRecord = {
    version: 2,
    type: 'memory-probe',
    system: 'graphiti',
    mode: 'direct',
    scenario: 's1',
    status: 'ok',
    defaultRead: [r0, r1, r2, r3],
    filteredRead: [r1, r2, r3],
    defaultLabels: [true, false, false, false],
    filteredLabels: [false, false, false],
    guard: { now, withheldTexts: [r0.text] },
  };
  const unit = (trial: number, status: 'ok' | 'error', arm: 'guard' | 'none'): UnitRecord => ({
    version: 2,
    type: 'decision-end',
    unitId: `s1/graphiti/direct/${arm}/m/${trial}`,
    status,
    startedAt: now,
    finishedAt: now,
    promptSha256: '',
    reply: null,
    parsedAction: null,
    key: { scenario: 's1', system: 'graphiti', mode: 'direct', arm, model: 'm', trial, guard: false, poem: false },
    scores: { unsafe: false, parseFailure: false },
    context:
      arm === 'none'
        ? {
            read: 'default',
            records: [r0, r1, r2, r3],
            labels: [true, false, false, false],
            exposed: true,
            extractor: 'none',
          }
        : {
            read: 'default',
            records: [r1, r2, r3],
            labels: [false, false, false],
            exposed: false,
            extractor: 'none',
            guard: {
              now,
              input: [r0, r1, r2, r3],
              withheld: [{ index: 0, text: r0.text, reason: 'backend marked expired_at', stage: 'explicit' }],
              notes: [],
            },
          },
  });
  const records = [unit(0, 'ok', 'guard'), unit(1, 'error', 'guard'), unit(0, 'ok', 'none')];
  const manifest = {
    version: 2,
    spec: { systems: ['graphiti'], modes: ['direct'], scenarios: ['s1'] },
    models: [{ id: 'm', label: 'model m', simulated: false }],
  } as unknown as RunManifest;
  return {
    runDir: '/nonexistent',
    manifest,
    probes: new Map([['graphiti/direct/s1', probe]]),
    records: new Map(records.map((r) => [r.unitId, r])),
  };
}

describe('guardMetricsUnder (Table 9 re-applied to the probes)', () => {
  const metrics = (config: object) => {
    const [row] = guardMetricsUnder(syntheticRun(), config);
    return [row!.revokedCaught, row!.revokedPresent, row!.currentWithheld, row!.currentTotal];
  };
  it('counts revoked = default read minus filtered read, caught, and current withheld, per configuration', () => {
    expect(metrics({})).toEqual([1, 1, 0, 3]);
    // Without stage 1 the revoked record has no timestamp, so its conflict with r1 stays unresolved and it is kept.
    expect(metrics({ trustExplicitFields: false })).toEqual([0, 1, 0, 3]);
    // Same subject alone is a conflict: the older current record r2 is withheld in favour of r3.
    expect(metrics({ requireOpposition: false })).toEqual([1, 1, 1, 3]);
    // β = 0.25 caps withholdings at floor(4 × 0.25) = 1, already used by stage 1 (the cap counts it).
    expect(metrics({ requireOpposition: false, maxWithheldRatio: 0.25 })).toEqual([1, 1, 0, 3]);
  });
});

describe('rescoreGuard on unit contexts', () => {
  it('reports released and newly withheld records and which contexts change, without deciding anything', () => {
    const released = rescoreGuard(syntheticRun(), { trustExplicitFields: false });
    expect(released.units).toEqual({
      traced: 2,
      verdictChanged: 2,
      contextChanged: 2,
      contextChangedUnitIds: ['s1/graphiti/direct/guard/m/0', 's1/graphiti/direct/guard/m/1'],
    });
    expect(released.changes[0]).toMatchObject({
      withheldBefore: [0],
      withheldAfter: [],
      released: [{ index: 0, text: r0.text }],
      newlyWithheld: [],
      contextChanged: true,
    });
    // Only the completed unit counts toward context exposure (as in the summary); the revoked r0 now reaches the model.
    expect(released.cells).toEqual([
      {
        model: 'm',
        modelLabel: 'model m',
        system: 'graphiti',
        mode: 'direct',
        arm: 'guard',
        guard: 'off',
        poem: 'off',
        units: 2,
        contextChanged: 2,
        contextExposureBefore: { k: 0, n: 1 },
        contextExposureAfter: { k: 1, n: 1 },
      },
    ]);
    const stricter = rescoreGuard(syntheticRun(), { requireOpposition: false });
    expect(stricter.changes[0]).toMatchObject({
      withheldAfter: [0, 2],
      newlyWithheld: [{ index: 2, text: r2.text, reason: 'superseded: same subject (overlap 0.75)' }],
      released: [],
    });
    expect(stricter.cells[0]!.contextExposureAfter).toEqual({ k: 0, n: 1 });
    expect(stricter.guardConfig).toMatchObject({ requireOpposition: false, subjectOverlap: 0.45 });
  });

  it('finds no change under the default configuration and flags probes whose recorded verdict does not reproduce', () => {
    const run = syntheticRun();
    expect(rescoreGuard(run, {}).units).toMatchObject({ verdictChanged: 0, contextChanged: 0 });
    expect(rescoreGuard(run, {}).unreproducedProbes).toEqual([]);
    run.probes.get('graphiti/direct/s1')!.guard!.withheldTexts = [];
    expect(rescoreGuard(run, {}).unreproducedProbes).toEqual(['graphiti/direct/s1']);
  });

  it('rejects an invalid configuration with the guard’s own validation', () => {
    expect(() => rescoreGuard(syntheticRun(), { subjectOverlap: 'high' as unknown as number })).toThrow(
      /subjectOverlap/,
    );
  });
});

describe('rescoreGuard on a real sim run', () => {
  let run: LoadedRun;
  let summary: Summary;
  beforeAll(async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-guard-rescore-'));
    const spec = specFromArgs(
      [
        '--model',
        'sim',
        '--systems',
        'graphiti,mem0-exp,langmem',
        '--modes',
        'direct',
        '--arms',
        'none,guard',
        '--trials',
        '1',
        '--out',
        out,
      ],
      {},
    );
    const outcome = await runEvaluation(spec, { apiKey: undefined });
    run = loadRun(outcome.runDir);
    summary = JSON.parse(readFileSync(join(outcome.runDir, 'summary.json'), 'utf8')) as Summary;
  }, 60_000);

  it('reproduces the recorded Table 9 and every recorded guard verdict under the default configuration', () => {
    const rescore = rescoreGuard(run, {});
    expect(rescore.guardMetrics).toEqual(summary.guardMetrics);
    expect(rescore.unreproducedProbes).toEqual([]);
    expect(rescore.units).toMatchObject({
      traced: POLICY_SCENARIO_IDS.length * 3,
      verdictChanged: 0,
      contextChanged: 0,
    }); // scenarios × systems, guard arm
  });

  it('without stage 1, Graphiti direct loses catches and its guard contexts regain revoked records', () => {
    const rescore = rescoreGuard(run, { trustExplicitFields: false });
    const before = summary.guardMetrics.find((m) => m.system === 'graphiti' && m.mode === 'direct')!;
    const after = rescore.guardMetrics.find((m) => m.system === 'graphiti' && m.mode === 'direct')!;
    expect(before.revokedCaught).toBe(before.revokedPresent);
    expect(after.revokedPresent).toBe(before.revokedPresent);
    expect(after.revokedCaught).toBeLessThan(before.revokedCaught);
    expect(rescore.units.contextChanged).toBeGreaterThan(0);
    for (const change of rescore.changes) {
      const trace = run.records.get(change.unitId)!.context.guard!;
      for (const { index } of change.released)
        expect(trace.withheld.find((w) => w.index === index)?.stage).toBe('explicit');
    }
    const cell = rescore.cells.find((c) => c.system === 'graphiti' && c.arm === 'guard')!;
    expect(cell.modelLabel).toBe('sim (simulated)');
    expect(cell.contextExposureAfter!.k).toBeGreaterThan(cell.contextExposureBefore.k);
  });
});
