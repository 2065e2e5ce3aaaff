import { describe, expect, it } from 'vitest';
import type {
  CellResult,
  IntegrityReport,
  TargetResult,
} from '../../pipeline/suites/integrity/harness/integrity-result.js';
import { computeMetric } from '../../pipeline/suites/integrity/harness/metric.js';
import { skippedCell } from '../../pipeline/suites/integrity/harness/procedure.js';
import { integrityJson, integrityMarkdown } from './integrity-report.js';
import { scorecardHtml, scorecardMarkdown } from './integrity-scorecard.js';

const ok = { ok: true, detail: 'fine' };
const cell = (
  edit: CellResult['edit'],
  verdict: CellResult['verdict'],
  reason: string | null,
  commands: string[] = [],
): CellResult => ({
  ...skippedCell({ edit, variant: null }, 'n/a', ''),
  verdict,
  reason,
  detection: verdict === 'rejected' ? 'read' : null,
  commands,
  controls: { c1: ok, c2: ok, c3: ok },
});
const cells = [
  cell('T1', 'rejected', 'IntegrityError: <script>alert(1)</script> | pipe', [
    'sqlite3 store.db "UPDATE t SET a = ?" -- "x"',
  ]),
  cell('T9', 'accepted', null),
];
const target: TargetResult = {
  id: 'demo',
  version: 'demo 1.0',
  config: { receipts: 'off' },
  unavailable: null,
  cells,
  metric: computeMetric(cells),
  description: {
    label: 'Demo <store>',
    model: false,
    versions: { demo: '1.0' },
    store: 'SQLite',
    config: { receipts: 'off' },
    detection: 'read',
    contexts: 2,
    tooling: 'SQL',
  },
};
const report: IntegrityReport = {
  version: 1,
  date: '2026-12-01T10:00:00.000Z',
  command: 'pnpm integrity --target demo',
  environment: { node: '20', platform: 'linux x64', recordsPerContext: 5 },
  targets: [target],
  exitCode: 1,
};

describe('integrity reports', () => {
  it('--json keeps the issue shape: targets → id, version, config, cells, metric; cells carry verdict, detection, reason and more', () => {
    const json = integrityJson(report);
    expect(Object.keys(json.targets[0] ?? {})).toEqual(['id', 'version', 'config', 'cells', 'metric']);
    expect(json.targets[0]?.cells[0]).toMatchObject({
      edit: 'T1',
      verdict: 'rejected',
      detection: 'read',
      attack: 'T1@v1',
      commands: ['sqlite3 store.db "UPDATE t SET a = ?" -- "x"'],
    });
  });

  it('Markdown states date, command, versions, configuration, stopping, controls and the exact commands; pipes are escaped', () => {
    const markdown = integrityMarkdown(report);
    for (const text of [
      '2026-12-01T10:00:00.000Z',
      'pnpm integrity --target demo',
      'Versions: demo 1.0',
      '- receipts: off',
      'stopped during every edit',
      'sqlite3 store.db "UPDATE t SET a = ?" -- "x"',
      'T9 (snapshot rollback, outside the metric): accepted',
    ]) {
      expect(markdown).toContain(text);
    }
    expect(markdown).toContain('</script> \\| pipe');
    expect(scorecardMarkdown(report)).toContain(
      '| Demo <store> | demo 1.0 | receipts: off | rejected (read) |  |  |  |  |  |  |  | accepted | not computed |',
    );
  });

  it('the HTML scorecard escapes everything a target says (labels, reasons)', () => {
    const html = scorecardHtml(report);
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('title="IntegrityError: &lt;script&gt;alert(1)&lt;/script&gt; | pipe"');
    expect(html).toContain('<td>Demo &lt;store&gt;</td>');
    expect(html).toContain('<td class="acc">accepted</td>');
  });
});
