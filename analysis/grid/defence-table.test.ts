// The defence table: every arm × guard × poem cell, readable rows, PoEM cells by construction (or an error, never 0 %).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specFromArgs } from '../../pipeline/cli/cli.js';
import { runEvaluation } from '../../pipeline/run/run.js';
import type { ProbeRecord, RunManifest, UnitRecord } from '../../pipeline/run-log/run-log.js';
import { buildDefenceTables } from './defence-table.js';
import { main } from '../report-command.js';
import type { LoadedRun } from '../load-run.js';
import { renderCsv } from '../render-csv.js';
import { formatCell } from '../render-markdown.js';

/** One graphiti direct scenario, one model; per (arm, guard, poem) two trials: one unsafe decision, one reply without action. */
function fakeRun(options: { verdict?: 'allowed' | 'overridden'; zep?: boolean; simulated?: boolean } = {}): LoadedRun {
  const probes = new Map<string, ProbeRecord>();
  probes.set('graphiti/direct/s', {
    version: 2,
    type: 'memory-probe',
    system: 'graphiti',
    mode: 'direct',
    scenario: 's',
    status: 'ok',
    defaultRead: [],
    exposure: { rule: 'status', exposed: true, revokedRank: 1 },
  });
  if (options.zep)
    probes.set('zep-ce/direct/s', {
      version: 2,
      type: 'memory-probe',
      system: 'zep-ce',
      mode: 'direct',
      scenario: 's',
      status: 'not-applicable',
      reason: 'natural only',
    });
  const records = new Map<string, UnitRecord>();
  for (const arm of ['none', 'store-filter'])
    for (const guard of [false, true])
      for (const poem of [false, true])
        for (const trial of [0, 1]) {
          const unitId = `s/graphiti/direct/${arm}/m/${trial}/${guard}/${poem}`;
          const gated = poem && trial === 0;
          const unsafe = gated ? options.verdict === 'allowed' : trial === 0;
          records.set(unitId, {
            unitId,
            key: { scenario: 's', system: 'graphiti', mode: 'direct', arm, model: 'm', trial, guard, poem },
            status: 'ok',
            context: { exposed: !guard && arm === 'none' },
            scores: { unsafe: trial === 1 ? null : unsafe, parseFailure: trial === 1 },
            ...(gated ? { poem: { verdict: options.verdict ?? 'overridden' } } : {}),
          } as unknown as UnitRecord);
        }
  const manifest = {
    runId: 'r',
    models: [{ id: 'm', label: 'm', simulated: options.simulated ?? false }],
    embedder: { id: 'lexical', dimensions: 256 },
    extraction: { id: 'sim-extractor-v2', simulated: true },
    spec: {
      systems: options.zep ? ['graphiti', 'zep-ce'] : ['graphiti'],
      modes: ['direct'],
      arms: ['none', 'store-filter'],
      guard: ['off', 'on'],
      poem: ['off', 'on'],
      scenarios: ['s'],
    },
  } as unknown as RunManifest;
  return { runDir: '/runs/r', manifest, probes, records };
}

describe('buildDefenceTables', () => {
  it("has one readable row per arm × guard × poem, with the paper's k/n, parse failures, errors and unsafe | parsed", () => {
    const [table] = buildDefenceTables([fakeRun({ zep: true })]);
    expect(table!.rows).toEqual([
      'graphiti, direct: no defence',
      'graphiti, direct: PoEM gate',
      'graphiti, direct: stale guard',
      'graphiti, direct: stale guard + PoEM gate',
      'graphiti, direct: store filter',
      'graphiti, direct: store filter + PoEM gate',
      'graphiti, direct: store filter + stale guard',
      'graphiti, direct: store filter + stale guard + PoEM gate',
      'zep-ce, direct: every defence',
    ]);
    const at = (row: string, column: string) => table!.cells.find((c) => c.row === row && c.column === column)!;
    expect(at('graphiti, direct: no defence', 'unsafe')).toMatchObject({
      k: 1,
      n: 2,
      parseFailures: 1,
      errors: 0,
      status: 'ok',
    });
    expect(at('graphiti, direct: no defence', 'unsafe | parsed')).toMatchObject({ k: 1, n: 1 });
    expect(at('graphiti, direct: no defence', 'revoked in context')).toMatchObject({
      k: 1,
      n: 1,
      embedder: 'lexical (256 dimensions)',
    });
    expect(at('zep-ce, direct: every defence', 'unsafe')).toMatchObject({
      status: 'n/a',
      unsupported: true,
      reason: 'natural only',
    });
  });

  it('says "enforced (by construction)" for PoEM cells, never a measured 0 %, and explains the rule', () => {
    const [table] = buildDefenceTables([fakeRun()]);
    const gated = table!.cells.find(
      (c) => c.row === 'graphiti, direct: store filter + stale guard + PoEM gate' && c.column === 'unsafe',
    )!;
    expect(gated).toMatchObject({ status: 'by-construction', k: 0, n: 2 });
    expect(gated.rate).toBeUndefined();
    expect(formatCell(gated)).toBe('enforced (by construction)');
    expect(table!.notes.join('\n')).toMatch(/records a safety step only after executing that decision/);
    expect(renderCsv([table!])).toMatch(
      /^defence,"graphiti, direct: PoEM gate",unsafe,0,2,,,,,model-dependent,by-construction,/m,
    );
  });

  it('turns "allowed" verdicts in the grid (runs before the subject fix) into an error cell, never a number', () => {
    const [table] = buildDefenceTables([fakeRun({ verdict: 'allowed' })]);
    const gated = table!.cells.find(
      (c) => c.row === 'graphiti, direct: stale guard + PoEM gate' && c.column === 'unsafe',
    )!;
    expect(gated).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/"allowed" verdict.*another unit's step/),
    });
    expect(formatCell(gated)).toBe('error');
  });

  it('keeps the simulator apart from a real model (two tables, the sim one labelled)', () => {
    const sim = fakeRun({ simulated: true });
    const simRun = {
      ...sim,
      manifest: {
        ...sim.manifest,
        runId: 's',
        models: [{ id: 'sim', label: 'sim (simulated)', simulated: true }],
      } as RunManifest,
      records: new Map([...sim.records].map(([id, r]) => [`sim-${id}`, { ...r, key: { ...r.key, model: 'sim' } }])),
    };
    const tables = buildDefenceTables([fakeRun(), simRun]);
    expect(tables.map((t) => [t.modelGroup, t.simulated, t.runs])).toEqual([
      ['real', false, ['r']],
      ['sim', true, ['s']],
    ]);
    expect(
      tables[0]!.cells.find((c) => c.row === 'graphiti, direct: no defence' && c.column === 'unsafe'),
    ).toMatchObject({ k: 1, n: 2 });
  });
});

describe('the follow-up defence table in the report', () => {
  it('reports every guard × PoEM row of a follow-up run (the paper tables keep only off/off), PoEM rows by construction', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-defence-'));
    const args = [
      '--experiment',
      'propagation',
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--scenarios',
      'privilege_escalation_deploy_approval',
      '--guard',
      'off,on',
      '--poem',
      'off,on',
      '--trials',
      '2',
      '--no-cache',
      '-o',
      out,
    ];
    const { runDir } = await runEvaluation(specFromArgs(args, {}), { apiKey: undefined }, { log: () => undefined });
    expect(
      await main(
        [runDir, '-o', join(out, 'report')],
        () => undefined,
        () => undefined,
      ),
    ).toBe(0);
    const markdown = readFileSync(join(out, 'report', 'tables.md'), 'utf8');
    const section = markdown
      .split('\n## ')
      .find((s) => s.startsWith('Defence table: Every defence of the propagation follow-up'))!;
    expect(section).toBeDefined();
    for (const arm of ['shared-default', 'shared-filtered', 'no-journal'])
      for (const axes of ['', ' + stale guard', ' + PoEM gate', ' + stale guard + PoEM gate'])
        expect(section).toContain(`| graphiti, direct: ${arm}${axes} |`);
    expect(section).toMatch(/^\| graphiti, direct: shared-default \+ PoEM gate \| enforced \(by construction\) \|/m);
    expect(markdown).toMatch(
      /Table 15[^\n]*\n[\s\S]*row\(s\) with --guard on or --poem on are not in the paper's layout/,
    );
  }, 60_000);
});
