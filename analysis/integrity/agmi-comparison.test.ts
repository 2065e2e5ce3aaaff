import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type {
  CellResult,
  IntegrityReport,
  TargetResult,
} from '../../pipeline/suites/integrity/harness/integrity-result.js';
import { computeMetric } from '../../pipeline/suites/integrity/harness/metric.js';
import { skippedCell } from '../../pipeline/suites/integrity/harness/procedure.js';
import { agmiComparisonMarkdown, compareWithAgmi, loadAgmiAtRest } from './agmi-comparison.js';
import { integritySuiteReport } from './integrity-suite-report.js';

const scratch = mkdtempSync(join(tmpdir(), 'agmi-comparison-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ok = { ok: true, detail: 'fine' };
const EDITS = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9'] as const;
const cell = (edit: CellResult['edit'], verdict: CellResult['verdict'], reason: string | null = null): CellResult => ({
  ...skippedCell({ edit, variant: null }, 'n/a', ''),
  verdict,
  reason,
  detection: verdict === 'rejected' ? 'read' : verdict === 'reported' ? 'audit' : null,
  observation: verdict === 'accepted' ? 'served 5 records; 1 of 1 edited contents among them' : null,
  controls: { c1: ok, c2: ok, c3: ok },
});
const target = (id: string, version: string, verdicts: CellResult['verdict'][], reason?: string): TargetResult => {
  const cells = verdicts.map((verdict, index) => cell(EDITS[index] ?? 'T9', verdict, reason ?? null));
  return {
    id,
    version,
    config: {},
    unavailable: null,
    cells: [...cells, { ...cell('T8', 'accepted'), variant: 'unrevoke' }],
    metric: computeMetric(cells),
    description: {
      label: id,
      model: false,
      versions: {},
      store: 'SQLite',
      config: {},
      detection: 'read',
      contexts: 2,
      tooling: 'SQL',
    },
  };
};
const report = (targets: TargetResult[]): IntegrityReport => ({
  version: 1,
  date: '2026-12-04T10:00:00.000Z',
  command: 'pnpm integrity',
  environment: { node: '20', platform: 'linux x64', recordsPerContext: 5 },
  targets,
  exitCode: 1,
});
const all = (verdict: CellResult['verdict'], n = 9) => Array.from({ length: n }, () => verdict);

describe("agmi's published at-rest table beside ours", () => {
  it('holds the seed table as printed: 18 rows, blank T9 cells absent, the unpublished runtime marked not installable', () => {
    const agmi = loadAgmiAtRest();
    expect(agmi.rows).toHaveLength(18);
    const byRow = (label: string) => agmi.rows.find((row) => row.row.startsWith(label));
    expect(byRow('langgraph-ledger')?.cells).toMatchObject({ T5: 'accepted', T8: 'accepted', T9: 'reported' });
    expect(byRow('Letta')?.cells.T9).toBeUndefined();
    expect(byRow('Mem0')?.cells.T6).toBe('error');
    expect(byRow('acrf-memory-guard')?.cells).toMatchObject({ T1: 'rejected', T2: 'accepted', T5: 'rejected' });
    expect(byRow('MythologIQ')?.installable).toBe(false);
  });

  it('compares cell by cell: agreement, a disagreement with our own reason, agmi error against its note, blanks', () => {
    const agmi = loadAgmiAtRest();
    const comparison = compareWithAgmi(
      report([
        target('langgraph-sqlite-py', 'langgraph-checkpoint-sqlite 3.1.2, langgraph-checkpoint 4.3.2', all('accepted')),
        target('reference', 'stalebench reference (model)', all('rejected')),
        target('mem0-py@2.2.1', 'mem0ai 2.2.1', all('accepted', 8)),
        target(
          'acrf-memory-guard',
          'acrf-memory-guard 0.1.0',
          ['rejected', 'rejected', 'accepted', 'accepted', 'rejected', 'accepted', 'accepted', 'not-evaluable'],
          'HMAC mismatch on entry 4',
        ),
      ]),
      agmi,
    );
    expect(comparison.targets.map((row) => row.target)).toEqual([
      'langgraph-sqlite-py',
      'mem0-py@2.2.1',
      'acrf-memory-guard',
    ]);
    // 9 (langgraph) + 7 (mem0: T6 is agmi's error, T9 blank) + 7 (acrf: T8 not evaluable here, T9 blank).
    expect(comparison.counts).toEqual({ both: 23, agree: 22, disagree: 1, agmiError: 1, matchesNote: 1 });
    const acrf = comparison.targets[2]?.cells ?? [];
    expect(acrf[1]).toEqual({
      edit: 'T2',
      status: 'disagree',
      ours: 'rejected (read)',
      agmi: 'accepted',
      why: 'ours rejected on the read: HMAC mismatch on entry 4.',
    });
    expect(acrf[7]).toMatchObject({ status: 'not-compared', ours: 'not-evaluable', agmi: 'rejected' });
    expect(acrf[8]).toMatchObject({ status: 'agmi-blank' });
    expect(comparison.targets[1]?.cells[5]).toMatchObject({
      status: 'agmi-error',
      predicted: 'accepted',
      matchesNote: true,
    });
    // langgraph-checkpoint-sqlite 3.1.1 in agmi, 3.1.2 here: listed beside the row.
    expect(comparison.targets[0]?.versions).toEqual({
      ours: 'langgraph-checkpoint-sqlite 3.1.2, langgraph-checkpoint 4.3.2',
      agmi: 'langgraph-checkpoint-sqlite 3.1.1',
    });
    const markdown = agmiComparisonMarkdown(comparison);
    expect(markdown).toContain('Cells both measure: 23; agree 22, disagree 1.');
    expect(markdown).toContain(
      '- acrf-memory-guard T2: agmi accepted; ours rejected on the read: HMAC mismatch on entry 4.',
    );
    expect(markdown).toContain(
      '- mem0-py@2.2.1 T6: agmi printed error; ours accepted, as its note predicts (accepted).',
    );
    expect(markdown).toMatch(/- MythologIQ Agent Memory reference runtime.*: Published only as a git repository/);
    expect(markdown).toContain('- LangGraph PostgresSaver: not in this run (--target langgraph-postgres)');
  });

  it('pnpm report adds agmi.md only when the run measured one of its rows (other runs render as before)', () => {
    const without = integritySuiteReport.render(report([target('reference', 'model', all('rejected'))]));
    expect(Object.keys(without)).toEqual(['scorecard.md', 'scorecard.html', 'scorecard.json', 'integrity.md']);
    expect(integritySuiteReport.text(report([target('reference', 'model', all('rejected'))]))).not.toContain('agmi');
    const run = report([target('langgraph-sqlite-py', 'langgraph-checkpoint-sqlite 3.1.1', all('accepted'))]);
    expect(integritySuiteReport.render(run)['agmi.md']).toContain('agree 9, disagree 0');
    expect(integritySuiteReport.text(run)).toContain("## Beside agmi's published at-rest table");
  });

  it('refuses a bad transcription in one error naming the file and the field', () => {
    const good = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'data', 'agmi', 'at-rest.json'), 'utf8'),
    );
    const write = (name: string, doc: unknown) => {
      const path = join(scratch, name);
      writeFileSync(path, JSON.stringify(doc));
      return path;
    };
    const misspelt = structuredClone(good);
    misspelt.rows[0].cells.T1 = 'acepted';
    expect(() => loadAgmiAtRest(write('misspelt.json', misspelt))).toThrow(/misspelt\.json[\s\S]*rows\[0\]\.cells\.T1/);
    const twice = structuredClone(good);
    twice.rows[1].targets = ['langgraph-sqlite-py'];
    expect(() => loadAgmiAtRest(write('twice.json', twice))).toThrow(
      /rows\[1\]\.targets: langgraph-sqlite-py is already the row "LangGraph SqliteSaver"/,
    );
    const predicted = structuredClone(good);
    predicted.rows[0].predicted = { T1: 'reported' };
    expect(() => loadAgmiAtRest(write('predicted.json', predicted))).toThrow(
      /rows\[0\]\.predicted\.T1: a prediction stands only/,
    );
  });
});
