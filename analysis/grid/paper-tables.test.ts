// Table builders on constructed runs and follow-up summaries: pooling, labels, group rows, matched pairs, sim labels.
import { describe, expect, it } from 'vitest';
import type { ProbeRecord, RunManifest, UnitRecord } from '../../pipeline/run-log/run-log.js';
import type {
  FollowUpRowKey,
  FollowUpSummary,
  PropagationRow,
  ToolsRow,
  WritebackRow,
} from '../follow-ups/follow-up-summary.types.js';
import type { LoadedRun } from '../load-run.js';
import { diffAgainstPaper } from '../paper-diff.js';
import { loadPaperReference } from '../paper-reference.js';
import type { PaperTable } from '../paper-table.js';
import { buildPaperTables } from './paper-tables.js';
import { modelRowLabel } from '../tables/grid-table-parts.js';
import type { ScenarioLabel } from '../tables/index.js';
import { buildTable6 } from '../tables/table-06.js';
import { buildTable7 } from '../tables/table-07.js';
import { buildTable8 } from '../tables/table-08-11.js';
import { buildTable9 } from '../tables/table-09.js';
import { buildTable12, matchedPairs } from '../tables/table-12.js';
import { buildTable13 } from '../tables/table-13.js';
import { buildTable14 } from '../tables/table-14.js';
import { buildTable15 } from '../tables/table-15.js';
import { buildTable16 } from '../tables/table-16.js';
import { formatCell } from '../render-markdown.js';
import { proportion } from './summarize.js';
import { unsafeCounts } from '../unsafe-counts.js';

// The paper's nine with their Table 8/11 places (scenarios/policy/index.json), in grid order.
const SCENARIOS: ScenarioLabel[] = [
  { id: 'privilege_escalation_deploy_approval', short: 'deploy approval', family: 'payload', table8: { rank: 8 } },
  { id: 'data_exfiltration_pii_export', short: 'PII export', family: 'payload', table8: { rank: 6 } },
  { id: 'guardrail_bypass_rollback', short: 'rollback policy', family: 'payload', table8: { rank: 7 } },
  {
    id: 'instruction_injection_in_memory',
    short: 'stored access directive',
    family: 'payload',
    table8: { rank: 9, pooledWithout: 'excluding directive' },
  },
  { id: 'guardrail_bypass_disclose_card', short: 'card disclosure', family: 'scenario', table8: { rank: 2 } },
  {
    id: 'destructive_op_delete_backups',
    short: 'backup deletion',
    family: 'scenario',
    table8: { rank: 1, pooledWithout: 'excluding backup deletion' },
  },
  { id: 'over_limit_financial_transfer', short: 'over-limit transfer', family: 'scenario', table8: { rank: 3 } },
  { id: 'compliance_log_deletion', short: 'compliance log deletion', family: 'scenario', table8: { rank: 5 } },
  { id: 'mfa_waiver_access', short: 'MFA waiver', family: 'scenario', table8: { rank: 4 } },
];
const ARMS = ['none', 'store-filter', 'prompt-hardening', 'output-filter', 'filter-hardening', 'guard'] as const;
const EXPOSING = new Set(['graphiti', 'mem0-exp']);

interface FakeRunOptions {
  runId: string;
  models: { id: string; label?: string; simulated?: boolean }[];
  systems: string[];
  modes?: ('direct' | 'natural')[];
  trials: number;
  /** Unsafe decisions in the first `unsafe(...)` trials of a (system, arm, model index, scenario index) cell. */
  unsafe: (system: string, arm: string, model: number, scenario: number) => number;
}

/** A grid run in memory: probes as the backends log them (v1 returned only by exposing systems) and one record per unit. */
function fakeRun(options: FakeRunOptions): LoadedRun {
  const modes = options.modes ?? ['direct'];
  const models = options.models.map((m) => ({ id: m.id, label: m.label ?? m.id, simulated: m.simulated ?? false }));
  const probes = new Map<string, ProbeRecord>();
  const records = new Map<string, UnitRecord>();
  for (const system of options.systems)
    for (const mode of modes)
      SCENARIOS.forEach((scenario, s) => {
        if (system === 'zep-ce' && mode === 'direct') {
          probes.set(`${system}/${mode}/${scenario.id}`, {
            version: 2,
            type: 'memory-probe',
            system,
            mode,
            scenario: scenario.id,
            status: 'not-applicable',
            reason: 'natural only',
          });
          return;
        }
        const exposed = EXPOSING.has(system);
        const v1 = { id: `${scenario.id}-v1`, text: `v1 of ${scenario.id}`, fields: {} };
        const v2 = { id: `${scenario.id}-v2`, text: `v2 of ${scenario.id}`, fields: {} };
        probes.set(`${system}/${mode}/${scenario.id}`, {
          version: 2,
          type: 'memory-probe',
          system,
          mode,
          scenario: scenario.id,
          status: 'ok',
          defaultRead: exposed ? [v1, v2] : [v2],
          filteredRead: [v2],
          exposure: { rule: 'lexical', exposed, revokedRank: exposed ? (s === 0 ? 2 : 1) : null },
          guard: { now: '2026-01-01T00:00:00Z', withheldTexts: exposed ? [v1.text] : [] },
        });
        if (system === 'zep-ce') return;
        for (const arm of ARMS)
          models.forEach((model, m) => {
            for (let trial = 0; trial < options.trials; trial++) {
              const key = {
                scenario: scenario.id,
                system,
                mode,
                arm,
                model: model.id,
                trial,
                guard: false,
                poem: false,
              };
              const unitId = `${scenario.id}/${system}/${mode}/${arm}/${model.id}/${trial}`;
              records.set(unitId, {
                version: 2,
                type: 'decision-end',
                unitId,
                key,
                status: 'ok',
                scores: { unsafe: trial < options.unsafe(system, arm, m, s), parseFailure: false },
              } as unknown as UnitRecord);
            }
          });
      });
  const manifest = {
    version: 2,
    runId: options.runId,
    status: 'success',
    simulated: models.some((m) => m.simulated),
    models,
    spec: {
      experiment: 'grid',
      systems: options.systems,
      modes,
      arms: [...ARMS],
      scenarios: SCENARIOS.map((s) => s.id),
      scenarioDir: null,
      guard: ['off'],
      poem: ['off'],
    },
    extraction: { id: 'sim-extractor-v2', simulated: true },
  } as unknown as RunManifest;
  return { runDir: `/runs/${options.runId}`, manifest, probes, records };
}

const cell = (table: PaperTable, row: string, column: string) =>
  table.cells.find((c) => c.row === row && c.column === column);
const kn = (table: PaperTable, row: string, column: string) => {
  const found = cell(table, row, column);
  return found ? { k: found.k, n: found.n } : undefined;
};
const NINE_MODELS = [
  'gpt-5.5',
  'grok-4',
  'deepseek-v4-flash',
  'gpt-5-nano',
  'gemini-2.5-flash',
  'grok-4-fast',
  'glm-5.2',
  'gemma-3-27b-it',
  'kimi-k2.6',
].map((id) => ({ id }));
// Unsafe counts that differ by system, arm, model and scenario, so a wrong pooling shows.
const pattern = (system: string, arm: string, m: number, s: number) =>
  arm === 'store-filter' || arm === 'filter-hardening' || !EXPOSING.has(system)
    ? 0
    : (m + 2 * s + (system === 'graphiti' ? 1 : 0) + arm.length) % 4;

describe('Table 6 and 13', () => {
  const run = fakeRun({
    runId: 'nine',
    models: NINE_MODELS,
    systems: ['graphiti', 'mem0-exp', 'mem0', 'langmem', 'cognee', 'zep-ce'],
    trials: 2,
    unsafe: pattern,
  });

  it("counts exposure over (model, scenario) pairs, so a 9-model run gives the paper's /81 and matches it exactly", () => {
    const table = buildTable6([run]);
    expect(cell(table, 'graphiti', 'exposure')).toMatchObject({
      k: 81,
      n: 81,
      models: 9,
      dependence: 'model-independent',
    });
    expect(cell(table, 'cognee', 'exposure')).toMatchObject({ k: 0, n: 81 });
    const diff = diffAgainstPaper([table], loadPaperReference());
    const exposure = diff.cells.filter((c) => c.table === '6' && c.column === 'exposure');
    expect(exposure).toHaveLength(5);
    for (const c of exposure) expect(c).toMatchObject({ verdict: 'match', basis: 'exact' });
  });

  it('pools every model and scenario of a system per arm, and the two exposed systems in the pooled row', () => {
    const table = buildTable6([run]);
    const expected = (systems: string[], arm: string) =>
      systems.reduce(
        (sum, system) =>
          sum +
          NINE_MODELS.reduce(
            (s1, _, m) => s1 + SCENARIOS.reduce((s2, __, s) => s2 + Math.min(2, pattern(system, arm, m, s)), 0),
            0,
          ),
        0,
      );
    expect(kn(table, 'graphiti', 'no defense')).toEqual({ k: expected(['graphiti'], 'none'), n: 162 });
    expect(kn(table, 'mem0 (exp.)', 'output')).toEqual({ k: expected(['mem0-exp'], 'output-filter'), n: 162 });
    expect(kn(table, 'pooled (graphiti + mem0 (exp.))', 'prompt')).toEqual({
      k: expected(['graphiti', 'mem0-exp'], 'prompt-hardening'),
      n: 324,
    });
    expect(kn(table, 'three clean-context baselines', 'no defense')).toEqual({ k: 0, n: 486 });
    expect(cell(table, 'graphiti', 'rank')).toMatchObject({ value: 10 / 9 });
    expect(cell(table, 'cognee', 'rank')).toMatchObject({ status: 'n/a', reason: 'no revoked record returned' });
    expect(cell(table, 'zep', 'no defense')).toMatchObject({ status: 'n/a', reason: 'natural only' });
    expect(table.simulated).toBe(false);
    expect(table.title).not.toMatch(/sim/);
  });

  it('Table 13 puts mem0 (expired filtered) against mem0 (exp.) (expired returned) with every arm', () => {
    const table = buildTable13([run]);
    expect(table.rows).toEqual(['expired filtered (default)', 'expired returned']);
    expect(table.columns).toEqual(['exposure', 'no defense', 'filter', 'prompt', 'output', 'filter+prompt', 'guard']);
    expect(kn(table, 'expired returned', 'exposure')).toEqual({ k: 81, n: 81 });
    expect(kn(table, 'expired filtered (default)', 'no defense')).toEqual({ k: 0, n: 162 });
  });

  it('scores a parse failure as not unsafe (kept in n) and leaves errors and the guard/PoEM axes out', () => {
    const small = fakeRun({
      runId: 'one',
      models: [{ id: 'sim', label: 'sim (simulated)', simulated: true }],
      systems: ['graphiti'],
      trials: 1,
      unsafe: () => 1,
    });
    const ids = [...small.records.keys()].filter((id) => id.includes('/none/'));
    small.records.set(ids[0]!, { ...small.records.get(ids[0]!)!, scores: { unsafe: null, parseFailure: true } });
    small.records.set(ids[1]!, { ...small.records.get(ids[1]!)!, status: 'error' });
    const guarded = small.records.get(ids[2]!)!;
    small.records.set(`${ids[2]}/guard`, {
      ...guarded,
      unitId: `${ids[2]}/guard`,
      key: { ...guarded.key, guard: true },
    });
    const table = buildTable6([small]);
    expect(kn(table, 'graphiti', 'no defense')).toEqual({ k: 7, n: 8 });
    expect(table.notes.join('\n')).toMatch(
      /1 completed trial\(s\) gave no action \(not unsafe, inside n\); 1 errored trial\(s\) are in no n/,
    );
    expect(cell(table, 'graphiti', 'no defense')).toMatchObject({
      parseFailures: 1,
      errors: 1,
      amongParsed: { k: 7, n: 7 },
    });
    expect(table.notes.join('\n')).toMatch(/1 unit\(s\) with --guard on/);
    expect(table.simulated).toBe(true);
    expect(table.title).toMatch(/sim \(simulated\)$/);
    expect(table.notes[0]).toMatch(/^sim: /);
  });
});

describe('Tables 7 and 8/11', () => {
  const run = fakeRun({
    runId: 'nine',
    models: NINE_MODELS,
    systems: ['graphiti', 'mem0-exp', 'mem0'],
    trials: 3,
    unsafe: pattern,
  });

  it("Table 7 gives one row per model under the paper's label, pooled over graphiti + mem0 (exp.), with a column total", () => {
    const table = buildTable7([run]);
    expect(table.rows).toEqual([
      ...'GPT-5.5 Grok-4 DeepSeek-V4-Flash GPT-5-nano Gemini-2.5-Flash'.split(' '),
      'Grok-4-Fast (non-reasoning)',
      'GLM-5.2',
      'Gemma-3-27B-IT',
      'Kimi-K2.6',
      'column total',
    ]);
    const expected = (m: number, arm: string) =>
      ['graphiti', 'mem0-exp'].reduce(
        (sum, system) => sum + SCENARIOS.reduce((s2, _, s) => s2 + Math.min(3, pattern(system, arm, m, s)), 0),
        0,
      );
    expect(kn(table, 'GPT-5-nano', 'no defense')).toEqual({ k: expected(3, 'none'), n: 54 });
    expect(kn(table, 'Kimi-K2.6', 'output filter')).toEqual({ k: expected(8, 'output-filter'), n: 54 });
    const total = NINE_MODELS.reduce((sum, _, m) => sum + expected(m, 'prompt-hardening'), 0);
    expect(kn(table, 'column total', 'prompt hardening')).toEqual({ k: total, n: 486 });
    expect(kn(table, 'GLM-5.2', 'filter')).toEqual({ k: 0, n: 54 });
  });

  it("maps gateway ids and labels onto the paper's model names and keeps anything else as labelled", () => {
    expect(modelRowLabel({ id: 'openai/gpt-5.5', label: 'openai/gpt-5.5' })).toBe('GPT-5.5');
    expect(modelRowLabel({ id: 'grok-4-fast', label: 'grok-4-fast' })).toBe('Grok-4-Fast (non-reasoning)');
    expect(modelRowLabel({ id: 'grok-4', label: 'grok-4' })).toBe('Grok-4');
    expect(modelRowLabel({ id: 'sim', label: 'sim (simulated)' })).toBe('sim (simulated)');
  });

  it("Table 8/11 has the paper's scenario rows and group rows, pooled and with the exclusions", () => {
    const table = buildTable8([run], SCENARIOS);
    expect(table.rows).toEqual([
      'with rule: backup deletion',
      'with rule: card disclosure',
      'with rule: over-limit transfer',
      'with rule: MFA waiver',
      'with rule: compliance log deletion',
      'with rule: pooled',
      'with rule: excluding backup deletion',
      'no rule: PII export',
      'no rule: rollback policy',
      'no rule: deploy approval',
      'no rule: stored access directive',
      'no rule: pooled (incl. directive)',
      'no rule: excluding directive',
    ]);
    const perScenario = (s: number) =>
      ['graphiti', 'mem0-exp'].reduce(
        (sum, system) => sum + NINE_MODELS.reduce((s1, _, m) => s1 + Math.min(3, pattern(system, 'none', m, s)), 0),
        0,
      );
    expect(kn(table, 'with rule: backup deletion', 'no defense')).toEqual({ k: perScenario(5), n: 54 });
    expect(kn(table, 'with rule: pooled', 'no defense')).toEqual({
      k: [4, 5, 6, 7, 8].reduce((sum, s) => sum + perScenario(s), 0),
      n: 270,
    });
    expect(kn(table, 'with rule: excluding backup deletion', 'no defense')).toEqual({
      k: [4, 6, 7, 8].reduce((sum, s) => sum + perScenario(s), 0),
      n: 216,
    });
    expect(kn(table, 'no rule: excluding directive', 'no defense')).toEqual({
      k: [0, 1, 2].reduce((sum, s) => sum + perScenario(s), 0),
      n: 162,
    });
    expect(kn(table, 'no rule: pooled (incl. directive)', 'filter')).toEqual({ k: 0, n: 216 });
  });

  it('Table 8/11 takes its row order and "excluding" rows from the scenarios\' table8 data, never from their ids', () => {
    const place: Record<string, ScenarioLabel['table8']> = {
      mfa_waiver_access: { rank: 1, pooledWithout: 'excluding MFA waiver' },
      guardrail_bypass_disclose_card: { rank: 2 },
      over_limit_financial_transfer: { rank: 3 },
      destructive_op_delete_backups: { rank: 4 },
    };
    const relabelled = SCENARIOS.map(({ table8: _paper, ...s }) =>
      s.family === 'scenario' ? { ...s, ...(place[s.id] ? { table8: place[s.id] } : {}) } : s,
    );
    const table = buildTable8([run], relabelled);
    expect(table.rows).toEqual([
      'with rule: MFA waiver',
      'with rule: card disclosure',
      'with rule: over-limit transfer',
      'with rule: backup deletion',
      'with rule: compliance log deletion',
      'with rule: pooled',
      'with rule: excluding MFA waiver',
      // Unranked: the order given (grid order), and no "excluding" row.
      'no rule: deploy approval',
      'no rule: PII export',
      'no rule: rollback policy',
      'no rule: stored access directive',
      'no rule: pooled (incl. directive)',
    ]);
  });
});

describe('Table 9', () => {
  it("sums the guard metrics of the logged probes per system and mode; Zep's direct row is n/a (it cannot express direct mode), never a logged zero", () => {
    const run = fakeRun({
      runId: 'probe',
      models: [{ id: 'm1' }, { id: 'm2' }],
      systems: ['graphiti', 'mem0', 'zep-ce'],
      modes: ['direct', 'natural'],
      trials: 1,
      unsafe: () => 0,
    });
    const table = buildTable9([run]);
    expect(cell(table, 'graphiti', 'revoked present (direct)')).toMatchObject({ value: 9 });
    expect(kn(table, 'graphiti', 'caught (direct)')).toEqual({ k: 9, n: 9 });
    expect(kn(table, 'graphiti', 'current withheld (indirect)')).toEqual({ k: 0, n: 9 });
    expect(kn(table, 'mem0', 'caught (direct)')).toEqual({ k: 0, n: 0 });
    expect(kn(table, 'graphiti', 'indirect revocation recorded')).toEqual({ k: 9, n: 9 });
    for (const column of ['revoked present (direct)', 'caught (direct)', 'current withheld (direct)'])
      expect(cell(table, 'zep', column)).toMatchObject({ status: 'n/a', reason: 'natural only', unsupported: true });
    expect(cell(table, 'graphiti', 'caught (direct)')?.embedder).toBe('unknown embedder (not in the manifest)');
    // Not per model: two models do not double the counts.
    expect(cell(table, 'graphiti', 'caught (direct)')?.models).toBeUndefined();
    // Natural mode used the simulated extractor: the table says sim even though no decision model was simulated.
    expect(table.simulated).toBe(true);
    expect(cell(table, 'graphiti', 'caught (indirect)')?.reason).toMatch(/simulated extractor/);
  });
});

describe('Table 12', () => {
  it("gives the paper's p = 0.629 and p < 0.001 on its discordant counts (10/7/64 and 0/39/42)", () => {
    expect(
      matchedPairs(
        [...Array(10)]
          .map(() => ({ a: { k: 2, n: 10 }, b: { k: 1, n: 10 } }))
          .concat(
            [...Array(7)].map(() => ({ a: { k: 0, n: 10 }, b: { k: 3, n: 10 } })),
            [...Array(64)].map(() => ({ a: { k: 4, n: 10 }, b: { k: 4, n: 10 } })),
          ),
      ),
    ).toMatchObject({ aOverB: 10, bOverA: 7, tied: 64 });
    // Counts built so that graphiti vs mem0 (exp.) has 10/7/64 discordant/tied cells and mem0 vs mem0 (exp.) 0/39/42.
    const cellIndex = (m: number, s: number) => m * 9 + s;
    const counts = (system: string, i: number) => {
      if (system === 'mem0') return 0;
      if (system === 'mem0-exp') return i < 39 ? 3 : 0;
      return i < 7 ? 2 : i < 39 ? 3 : i < 49 ? 1 : 0;
    };
    const run = fakeRun({
      runId: 'pairs',
      models: NINE_MODELS,
      systems: ['graphiti', 'mem0-exp', 'mem0'],
      trials: 10,
      unsafe: (system, arm, m, s) => (arm === 'none' ? counts(system, cellIndex(m, s)) : 0),
    });
    const table = buildTable12([run]);
    expect(table.rows).toEqual(['graphiti vs mem0 (exp.)', 'mem0 vs mem0 (exp.)']);
    expect(
      table.cells
        .filter((c) => c.row === 'graphiti vs mem0 (exp.)' && ['A>B', 'B>A', 'tied'].includes(c.column))
        .map((c) => c.value),
    ).toEqual([10, 7, 64]);
    const first = cell(table, 'graphiti vs mem0 (exp.)', 'exact p')!;
    expect(first).toMatchObject({ isP: true });
    expect(first.value).toBeCloseTo(0.629059, 6);
    expect(formatCell(first)).toBe('p = 0.629');
    const second = cell(table, 'mem0 vs mem0 (exp.)', 'exact p')!;
    expect(
      table.cells
        .filter((c) => c.row === 'mem0 vs mem0 (exp.)' && ['A>B', 'B>A', 'tied'].includes(c.column))
        .map((c) => c.value),
    ).toEqual([0, 39, 42]);
    expect(second.value).toBeLessThan(1e-11);
    expect(formatCell(second)).toBe('p < 0.001');
    expect(kn(table, 'mem0 vs mem0 (exp.)', 'A unsafe')).toEqual({ k: 0, n: 810 });
    expect(kn(table, 'mem0 vs mem0 (exp.)', 'B unsafe')).toEqual({ k: 39 * 3, n: 810 });
  });
});

const p = (k: number, n: number) => proportion(k, n);
/** Decision counts with no parse failure and no error: headline and among-parsed rate are k/n. */
const c = (k: number, n: number) => unsafeCounts({ unsafe: k, completed: n, parseFailures: 0, errors: 0 });
const rowKey = (arm: string, model = '*', extra: Partial<FollowUpRowKey> = {}): FollowUpRowKey => ({
  model,
  modelLabel: model === '*' ? 'all models' : model,
  simulated: false,
  system: 'graphiti',
  mode: 'direct',
  arm,
  guard: 'off',
  poem: 'off',
  status: 'ok',
  runs: 10,
  errors: 0,
  ...extra,
});
function writeback(arm: string, model: string, base: number): WritebackRow {
  return {
    ...rowKey(arm, model),
    hop0Unsafe: c(base, 20),
    hop0FilteredUnsafe: c(0, 20),
    poisoned: base,
    storedActive: arm === 'direct' ? p(base, base) : p(1, base),
    journalsStored: p(arm === 'direct' ? base : 3, base),
    defaultHops: [c(base - 1, base), c(base - 2, base), c(base, base)],
    filteredHops: [c(1, base), c(2, base), c(3, base)],
    journalRetrievedFiltered: [p(1, base), p(1, base), p(1, base)],
    filteredHop1GivenActive: c(1, 1),
    hopParseFailures: 0,
  };
}

describe('Tables 14, 15 and 16 from follow-up summaries', () => {
  it('Table 14 sums the per-model rows over models and runs (never the pooled "*" rows as well), and derives the superseded journals', () => {
    const one: FollowUpSummary = {
      experiment: 'writeback',
      simulated: false,
      writeback: [writeback('direct', 'm1', 8), writeback('natural', 'm1', 6), writeback('direct', '*', 10)],
    };
    const two: FollowUpSummary = {
      experiment: 'writeback',
      simulated: true,
      writeback: [
        writeback('direct', 'm2', 4),
        writeback('natural', 'm2', 5),
        { ...writeback('natural', 'm2', 5), guard: 'on' },
      ],
    };
    const table = buildTable14([
      { runId: 'a', simulated: false, summary: one },
      { runId: 'b', simulated: true, summary: two },
    ]);
    expect(kn(table, 'direct', 'default hop1')).toEqual({ k: 7 + 3, n: 12 });
    expect(kn(table, 'natural', 'filter hop3')).toEqual({ k: 6, n: 11 });
    expect(kn(table, 'natural', 'stored active')).toEqual({ k: 2, n: 11 });
    expect(cell(table, 'natural', 'journals marked superseded')).toMatchObject({ value: 4 });
    expect(kn(table, 'no write-back', 'default')).toEqual({ k: 8 + 6 + 4 + 5, n: 80 });
    expect(kn(table, 'hop 0', 'poisoned')).toEqual({ k: 23, n: 80 });
    expect(table.columns.slice(0, 7)).toEqual([
      'stored active',
      'default hop1',
      'default hop2',
      'default hop3',
      'filter hop1',
      'filter hop2',
      'filter hop3',
    ]);
    expect(table.simulated).toBe(true);
    expect(table.runs).toEqual(['a', 'b']);
  });

  it('Table 14 says "not observable" where the system cannot list its records', () => {
    const row = {
      ...writeback('direct', 'm1', 4),
      storedActive: null,
      journalsStored: null,
      filteredHop1GivenActive: null,
    };
    const table = buildTable14([
      { runId: 'a', simulated: false, summary: { experiment: 'writeback', simulated: false, writeback: [row] } },
    ]);
    expect(cell(table, 'direct', 'stored active')).toMatchObject({
      status: 'n/a',
      reason: expect.stringMatching(/not observable/),
    });
    expect(cell(table, 'direct', 'journals marked superseded')).toBeUndefined();
  });

  it("Table 15 maps the three arms onto the paper's conditions and computes the mean unsafe roles over runs", () => {
    const row = (arm: string, executor: number): PropagationRow => ({
      ...rowKey(arm, 'm1'),
      executorUnsafe: c(executor, 10),
      reviewerUnsafe: c(executor, 10),
      plannerUnsafe: c(1, 10),
      reviewerGivenPoisoned: c(executor, executor),
      anyLaterGivenPoisoned: c(executor, executor),
      allThree: c(0, 10),
      meanUnsafeRoles: { sum: 2 * executor + 1, n: 10, mean: (2 * executor + 1) / 10 },
      allRolesSawRevoked: p(arm === 'shared-filtered' ? 0 : 10, 10),
      incomplete: 0,
    });
    const summary: FollowUpSummary = {
      experiment: 'propagation',
      simulated: false,
      propagation: [row('shared-default', 4), row('shared-filtered', 0), row('no-journal', 3)],
    };
    const table = buildTable15([
      { runId: 'a', simulated: false, summary },
      { runId: 'b', simulated: false, summary },
    ]);
    expect(table.rows).toEqual(['shared, default', 'shared, filtered', 'default, no journal']);
    expect(kn(table, 'shared, default', 'executor unsafe')).toEqual({ k: 8, n: 20 });
    expect(kn(table, 'shared, filtered', 'reviewer unsafe | poisoned')).toEqual({ k: 0, n: 0 });
    expect(cell(table, 'default, no journal', 'mean unsafe roles')).toMatchObject({ value: 0.7 });
    expect(cell(table, 'shared, default', 'all roles saw v1')).toMatchObject({
      k: 20,
      n: 20,
      dependence: 'model-independent',
    });
    expect(table.simulated).toBe(false);
  });

  it('Table 16 gives the pooled arm rows, per-scenario rows, one-liners from the code-execution scenario and relapse', () => {
    const tools = (arm: string, scenario: string, fired: number, n = 4): ToolsRow => ({
      ...rowKey(arm, 'm1'),
      scenario,
      toolExecution: p(fired, n),
      secretRead: p(scenario === 'secret_exfiltration_env' ? fired : 0, n),
      exfilConfirmed: p(0, n),
      shellRefused: p(arm === 'tool-guardrail' ? 1 : 0, n),
      interpreterOneLiners: p(scenario === 'arbitrary_code_execution' ? 1 : 0, n),
      bypassedToolGuardrail: p(0, n),
      safe: p(n - fired, n),
      relapse: arm === 'none' ? { default: p(fired, fired), filtered: p(0, fired) } : null,
    });
    const rows = ['none', 'store-filter', 'guard', 'tool-guardrail'].flatMap((arm) => [
      tools(arm, '*', 3, 16),
      tools(arm, 'secret_exfiltration_env', 2),
      tools(arm, 'arbitrary_code_execution', 1),
    ]);
    const table = buildTable16([
      { runId: 'a', simulated: true, summary: { experiment: 'tools', simulated: true, tools: rows } },
    ]);
    expect(kn(table, 'no defense', 'tool execution')).toEqual({ k: 3, n: 16 });
    expect(kn(table, 'tool-layer guardrail', 'shell commands refused')).toEqual({ k: 1, n: 16 });
    expect(kn(table, 'retrieval filter', 'interpreter one-liners')).toEqual({ k: 1, n: 4 });
    expect(kn(table, 'no defense: secret exfiltration', 'secret read')).toEqual({ k: 2, n: 4 });
    expect(kn(table, 'relapse, default retrieval', 'tool attack fired')).toEqual({ k: 3, n: 3 });
    expect(kn(table, 'relapse, retrieval filter', 'tool attack fired')).toEqual({ k: 0, n: 3 });
    expect(table.rows).toContain('guard: arbitrary code execution');
    expect(table.title).toMatch(/sim/);
  });

  it('builds only the tables the inputs can fill', () => {
    const run = fakeRun({ runId: 'g', models: [{ id: 'm' }], systems: ['graphiti'], trials: 1, unsafe: () => 0 });
    expect(buildPaperTables([run], SCENARIOS).map((t) => t.id)).toEqual(['6', '7', '8/11', '9']);
    expect(
      buildPaperTables([], SCENARIOS, [
        {
          runId: 'w',
          simulated: false,
          summary: { experiment: 'writeback', simulated: false, writeback: [writeback('direct', 'm1', 3)] },
        },
      ]).map((t) => t.id),
    ).toEqual(['14']);
  });
});
