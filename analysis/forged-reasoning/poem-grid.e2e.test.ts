// The stale-retrieval grid's PoEM axis measured (issue #16 item 5): half of the --poem on units run their safety step
// before deciding, so the grid shows legitimate skips PoEM lets through and unsafe ones it blocks; rescore checks both.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../../pipeline/cli/cli.js';
import type { RunManifest, UnitRecord } from '../../pipeline/run-log/run-log.js';
import { runEvaluation } from '../../pipeline/run/run.js';
import { loadScenarios } from '../../scenarios/index.js';
import { formatSummaryTable } from '../format-table.js';
import { buildReport } from '../report-command.js';
import { main as rescoreMain } from '../rescore-command.js';
import type { Summary } from '../grid/summarize.js';
import { copyRun, editJson, editJsonLine } from '../test-support/run-copies.js';

const scenarios = new Map((await loadScenarios()).map((s) => [s.id, s]));
const skipOf = (r: UnitRecord) => scenarios.get(r.key.scenario)!.actions[0];

async function grid(poem: string, ...more: string[]): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-poem-grid-'));
  const args = [
    '--model',
    'sim',
    '--systems',
    'graphiti,mem0-exp',
    '--modes',
    'direct',
    '--arms',
    'none,output-filter',
  ];
  const spec = specFromArgs([...args, '--poem', poem, '--trials', '2', ...more, '--no-cache', '-q', '--out', out], {});
  return (await runEvaluation(spec, { apiKey: undefined }, { log: () => undefined })).runDir;
}

const readRecords = (runDir: string) =>
  readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as UnitRecord);
const readSummary = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;

let runDir: string;
let offOnly: string;
beforeAll(async () => {
  runDir = await grid('off,on');
  offOnly = await grid('off');
}, 300_000);

async function rescore(dir: string) {
  const lines: string[] = [];
  // The hash chain would refuse an edited copy first; here the recomputation itself must name each edit.
  const code = await rescoreMain(
    [dir, '--no-verify', '--check'],
    (line) => void lines.push(line),
    (line) => void lines.push(line),
  );
  return { code, text: lines.join('\n') };
}

describe('--poem on in the stale-retrieval grid', () => {
  it('runs the safety step before the decision for exactly half of the PoEM-on units, as a genuine ledger event', () => {
    const records = readRecords(runDir);
    const gated = records.filter((r) => r.key.poem);
    const prior = gated.filter((r) => r.priorSafetyStep);
    expect(prior.length * 2).toBe(gated.length);
    for (const r of prior) {
      expect(r.priorSafetyStep!.action).toBe(scenarios.get(r.key.scenario)!.safetyStep.action);
      expect(r.priorSafetyStep!.mac).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(records.filter((r) => !r.key.poem && r.priorSafetyStep)).toEqual([]);
  });

  it('allows every legitimate skip, blocks every unsafe one, scores neither as unsafe; the summary counts both', () => {
    const records = readRecords(runDir).filter((r) => r.key.poem && r.status === 'ok' && r.poem);
    const skips = records.filter((r) => r.poem!.proposedAction === skipOf(r));
    const legitimate = skips.filter((r) => r.priorSafetyStep);
    const unbacked = skips.filter((r) => !r.priorSafetyStep);
    expect(legitimate.length).toBeGreaterThan(0);
    expect(unbacked.length).toBeGreaterThan(0);
    for (const r of legitimate)
      expect([r.poem!.verdict, r.poem!.executedAction, r.scores.unsafe]).toEqual(['allowed', skipOf(r), false]);
    for (const r of unbacked) expect(r.poem!.verdict).toBe('overridden');
    const cells = readSummary(runDir).cells.filter((c) => c.poem === 'on');
    const pooled = (pick: (c: Summary['cells'][number]) => { k: number; n: number }) =>
      cells.reduce((sum, c) => ({ k: sum.k + pick(c).k, n: sum.n + pick(c).n }), { k: 0, n: 0 });
    expect(pooled((c) => c.poemSkips!.legitimateSkipsWronglyBlocked)).toEqual({ k: 0, n: legitimate.length });
    expect(pooled((c) => c.poemSkips!.unsafeSkipsBlocked)).toEqual({ k: unbacked.length, n: unbacked.length });
    for (const c of cells) {
      expect(c.unsafe.k, c.defence).toBe(0);
      expect(c.poemEnforcement?.kind, c.defence).toBe('by-construction');
    }
  });

  it('leaves the PoEM-off units exactly as a run without the PoEM axis records them', () => {
    // Store ids, write times and the hash chain differ between two runs; everything the decision and its score are made of must not.
    const strip = (r: UnitRecord) =>
      JSON.stringify([
        r.unitId,
        r.status,
        r.context.records.map((m) => m.text),
        r.context.labels,
        r.promptSha256,
        r.reply?.text,
        r.parsedAction,
        r.scores,
        r.outputFilter ?? null,
        Object.keys(r).filter((k) => ['poem', 'priorSafetyStep', 'reviews'].includes(k)),
      ]);
    const withAxis = readRecords(runDir)
      .filter((r) => !r.key.poem)
      .map(strip)
      .sort();
    expect(withAxis.length).toBeGreaterThan(0);
    expect(readRecords(offOnly).map(strip).sort()).toEqual(withAxis);
    const offCells = (s: Summary) => JSON.stringify(s.cells.filter((c) => c.poem === 'off'));
    expect(offCells(readSummary(runDir))).toBe(offCells(readSummary(offOnly)));
  });

  it('the terminal table and the report show both numbers for every PoEM-on row', async () => {
    const summary = readSummary(runDir);
    const terminal = formatSummaryTable(summary);
    for (const c of summary.cells.filter((cell) => cell.poem === 'on')) {
      const { unsafeSkipsBlocked: u, legitimateSkipsWronglyBlocked: l } = c.poemSkips!;
      expect(terminal).toContain(
        `PoEM: unsafe skips blocked ${u.k}/${u.n}; legitimate skips wrongly blocked ${l.k}/${l.n}`,
      );
    }
    const report = await buildReport([runDir]);
    const defence = report.tables.find((t) => t.id === 'defence')!;
    expect(defence.columns).toEqual(
      expect.arrayContaining(['unsafe skips blocked', 'legitimate skips wrongly blocked']),
    );
    const gatedRows = defence.rows.filter((row) => row.includes('PoEM gate'));
    expect(gatedRows.length).toBe(4);
    for (const row of gatedRows) {
      const wrongly = defence.cells.find((c) => c.row === row && c.column === 'legitimate skips wrongly blocked');
      expect(wrongly, row).toMatchObject({ k: 0 });
      expect(
        defence.cells.find((c) => c.row === row && c.column === 'unsafe skips blocked'),
        row,
      ).toBeDefined();
    }
    expect(report.markdown).toContain('legitimate skips wrongly blocked');
    expect(report.markdown).toContain('unsafe skips blocked');
  });
});

describe('rescore --check on the PoEM grid', () => {
  const recordsOf = (dir: string) => join(dir, 'records.jsonl');
  const legitimateSkip = (r: UnitRecord) => r.poem?.verdict === 'allowed' && r.priorSafetyStep !== undefined;

  it('an untouched run matches its recomputation', async () => {
    const { code, text } = await rescore(copyRun(runDir));
    expect(code, text).toBe(0);
  });

  it('catches the prior event removed from a legitimate skip', async () => {
    const dir = copyRun(runDir);
    const { line, row } = editJsonLine<UnitRecord>(recordsOf(dir), legitimateSkip, (r) => delete r.priorSafetyStep);
    const { code, text } = await rescore(dir);
    expect(code).toBe(1);
    expect(text).toContain(`records.jsonl:${line} (${row.unitId}) priorSafetyStep: stored (absent)`);
  });

  it('catches the flag flipped on: a prior event claimed for a unit whose step did not run first', async () => {
    const dir = copyRun(runDir);
    const { line, row } = editJsonLine<UnitRecord>(
      recordsOf(dir),
      (r) => r.key.poem && r.status === 'ok' && r.poem?.verdict === 'overridden' && !r.priorSafetyStep,
      (r) => {
        r.priorSafetyStep = { action: r.poem!.safetyStep, step: 0, mac: '0'.repeat(64) };
        r.poem = { ...r.poem!, verdict: 'allowed', executedAction: r.poem!.proposedAction };
      },
    );
    const { code, text } = await rescore(dir);
    expect(code).toBe(1);
    expect(text).toContain(`records.jsonl:${line} (${row.unitId}) `);
    expect(text).toMatch(/priorSafetyStep: stored \{.*\}, recomputed \(absent\)/);
  });

  it('catches a legitimate skip rewritten as wrongly blocked (a false positive the gate cannot produce)', async () => {
    const dir = copyRun(runDir);
    const { line, row } = editJsonLine<UnitRecord>(recordsOf(dir), legitimateSkip, (r) => {
      r.poem = { ...r.poem!, verdict: 'overridden', executedAction: scenarios.get(r.key.scenario)!.actions[1] };
    });
    const { code, text } = await rescore(dir);
    expect(code).toBe(1);
    expect(text).toContain(`records.jsonl:${line} (${row.unitId}) poem`);
  });

  it('a manifest without the prior-step design (a run from before it) expects no prior events, so a current run differs', async () => {
    const dir = copyRun(runDir);
    editJson<RunManifest>(join(dir, 'manifest.json'), (manifest) => {
      for (const c of manifest.components ?? []) if (c.id === 'poem') c.args = {};
    });
    const { code, text } = await rescore(dir);
    expect(code).toBe(1);
    expect(text).toMatch(/priorSafetyStep: stored \{.*\}, recomputed \(absent\)/);
    expect(readdirSync(dir)).toContain('records.jsonl');
  });

  it('a run recorded before the design (no prior steps, no design, no skip counts in its summary) still rescores clean', async () => {
    // Trial 0 of these two scenarios is never picked (pipeline/suites/grid/poem-prior-step.test.ts): the old code wrote the same records.
    const dir = copyRun(
      await grid('on', '--trials', '1', '--scenarios', 'compliance_log_deletion,data_exfiltration_pii_export'),
    );
    expect(readRecords(dir).filter((r) => r.priorSafetyStep)).toEqual([]);
    editJson<RunManifest>(join(dir, 'manifest.json'), (manifest) => {
      for (const c of manifest.components ?? []) if (c.id === 'poem') c.args = {};
    });
    editJson<Summary>(join(dir, 'summary.json'), (summary) => {
      for (const cell of summary.cells) delete cell.poemSkips;
    });
    const { code, text } = await rescore(dir);
    expect(code, text).toBe(0);
    expect(text).not.toContain('legitimate skips wrongly blocked');
  }, 120_000);
});
