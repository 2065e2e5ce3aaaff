// Acceptance (issue #27 item 4): a throwaway defence axis added as one file plus its registry line (an import and an
// entry) runs through `pnpm eval` (sim), `pnpm report` and `--help` on a copy of the source tree, with no other edit:
// its flag, its values in the unit keys and ids, its defence applied, its summary cells and its defence-table rows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SummaryCell } from '../../../analysis/grid/summarize.js';
import { loadScenarios } from '../../../scenarios/index.js';
import { unsafeAction } from '../../../scenarios/scenario.js';
import { sha256 } from '../../run-log/json-files.js';
import { buildDecisionMessages } from '../../suites/grid/prompts.js';
import type { RunManifest, UnitRecord } from '../../run-log/run-log.js';
import { type CommandResult, copySourceTree, type SourceCopy } from '../../test-support/source-copy.js';
import { HEDGE_AXIS, HEDGE_PREFIX } from '../../test-support/throwaway-parts/hedge-axis.js';

const lines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
const ok = (result: CommandResult) => `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-2000)}`;
/** The axis's field of a key: not a field of this checkout's `UnitKey` (it is one only in the copy). */
const hedged = (record: UnitRecord) => (record.key as unknown as Record<string, unknown>).hedge;

describe('a defence axis registered with one file and one registry line', () => {
  let copy: SourceCopy;
  let runDir: string;
  let evaluation: CommandResult;

  beforeAll(async () => {
    copy = copySourceTree();
    copy.addPart(HEDGE_AXIS);
    runDir = join(copy.dir, 'runs', 'hedge');
    evaluation = await copy.run('eval', [
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none,store-filter',
      '--guard',
      'off,on',
      '--hedge',
      'off,on',
      '--trials',
      '2',
      '--out',
      join(copy.dir, 'runs'),
      '--run-id',
      'hedge',
      '--cache-dir',
      join(copy.dir, 'cache'),
      '-q',
    ]);
  }, 240_000);

  afterAll(() => copy?.remove());

  it('runs through eval: the axis varies the units, its key field and unit-id segment appear when on', async () => {
    expect(evaluation.code, ok(evaluation)).toBe(0);
    const records = lines<UnitRecord>(join(runDir, 'records.jsonl'));
    // 9 scenarios × 2 trials × 2 arms × guard off,on × hedge off,on.
    expect(records).toHaveLength(9 * 2 * 2 * 2 * 2);
    const on = records.filter((r) => hedged(r) === true);
    const off = records.filter((r) => hedged(r) !== true);
    expect(on).toHaveLength(72);
    for (const record of off) {
      // Off: the key and its id are exactly what they were before the axis existed.
      expect(Object.keys(record.key)).toEqual(['scenario', 'system', 'mode', 'arm', 'model', 'trial', 'guard', 'poem']);
      expect(record.unitId).not.toMatch(/hedge/);
      expect(record.reviews?.hedge).toBeUndefined();
    }
    for (const record of on) {
      expect(Object.keys(record.key)).toEqual([
        'scenario',
        'system',
        'mode',
        'arm',
        'model',
        'trial',
        'guard',
        'poem',
        'hedge',
      ]);
      expect(record.unitId).toMatch(record.key.guard ? /\/guard\/hedge$/ : /\/\d+\/hedge$/);
    }
  });

  it('applies its own defence: the prefix reaches the model and the step blocks every unsafe decision', async () => {
    const scenarios = new Map((await loadScenarios()).map((scenario) => [scenario.id, scenario]));
    for (const record of lines<UnitRecord>(join(runDir, 'records.jsonl')).filter((r) => hedged(r) === true)) {
      const scenario = scenarios.get(record.key.scenario)!;
      const messages = buildDecisionMessages({
        facts: record.context.records.map((r) => r.text),
        task: scenario.task,
        actions: scenario.actions,
        guardrail: scenario.guardrail,
        harden: false,
      }).map((m) => (m.role === 'system' ? { ...m, content: HEDGE_PREFIX + m.content } : m));
      expect(record.promptSha256).toBe(sha256(JSON.stringify(messages)));
      const blocked = record.parsedAction === unsafeAction(scenario);
      expect(record.reviews).toEqual({ hedge: { blocked } });
    }
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect((manifest.components ?? []).filter((c) => c.kind === 'defence').map((c) => c.id)).toEqual([
      'none',
      'store-filter',
      'guard',
      'hedge',
    ]);
    expect(manifest.spec).toMatchObject({ guard: ['off', 'on'], poem: ['off'], hedge: ['off', 'on'] });
  });

  it('has summary cells per value, labelled from the registry, with the numbers the defence changed', () => {
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { cells: SummaryCell[] };
    const cellOf = (arm: string, guard: string, hedge: string) =>
      summary.cells.filter(
        (c) =>
          c.arm === arm && c.guard === guard && ((c as unknown as Record<string, unknown>).hedge ?? 'off') === hedge,
      );
    expect(summary.cells).toHaveLength(2 * 2 * 2);
    expect(cellOf('none', 'off', 'on')[0]?.defence).toBe('hedge gate');
    expect(cellOf('store-filter', 'on', 'on')[0]?.defence).toBe('store filter + stale guard + hedge gate');
    expect(cellOf('none', 'off', 'off')[0]?.defence).toBe('no defence');
    // Off, the cell is what it was before the axis existed: no field of it.
    expect(Object.keys(cellOf('none', 'off', 'off')[0] ?? {})).not.toContain('hedge');
    expect(cellOf('none', 'off', 'on')[0]).toMatchObject({ hedge: 'on' });
    // The step blocks every unsafe decision: 0 where the undefended cell measured some (a number the axis changed).
    expect(cellOf('none', 'off', 'off')[0]?.unsafe.k).toBeGreaterThan(0);
    expect(cellOf('none', 'off', 'on')[0]?.unsafe).toMatchObject({ k: 0, n: 18 });
  });

  it('is a flag of --help, and an unknown value is refused naming the flag', async () => {
    const help = await copy.run('eval', ['--help']);
    expect(help.stdout).toContain(
      '  --hedge <off,on>        run every arm without and/or with the hedge gate (test only)',
    );
    const refused = await copy.run('eval', ['--model', 'sim', '--hedge', 'maybe', '--dry-run']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--hedge: Invalid option: expected one of "off"|"on"');
  }, 60_000);

  it('is reported: the defence table has its rows, labelled from the registry', async () => {
    const report = await copy.run('report', [runDir]);
    expect(report.code, ok(report)).toBe(0);
    const tables = readFileSync(join(runDir, 'report', 'tables.md'), 'utf8');
    expect(tables).toContain('graphiti, direct: store filter + stale guard + hedge gate');
    expect(tables).toContain('graphiti, direct: hedge gate');
  }, 240_000);
});
