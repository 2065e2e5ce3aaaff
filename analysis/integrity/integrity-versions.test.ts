import { describe, expect, it } from 'vitest';
import type {
  CellResult,
  IntegrityReport,
  TargetResult,
} from '../../pipeline/suites/integrity/harness/integrity-result.js';
import { computeMetric } from '../../pipeline/suites/integrity/harness/metric.js';
import { skippedCell } from '../../pipeline/suites/integrity/harness/procedure.js';
import { integritySuiteReport } from './integrity-suite-report.js';
import { versionPairs, versionPairsMarkdown } from './integrity-versions.js';

const ok = { ok: true, detail: 'fine' };
const cell = (
  edit: CellResult['edit'],
  verdict: CellResult['verdict'],
  variant: 'unrevoke' | null = null,
): CellResult => ({
  ...skippedCell({ edit, variant }, 'n/a', ''),
  verdict,
  detection: verdict === 'reported' ? 'audit' : null,
  controls: { c1: ok, c2: ok, c3: ok },
});
const target = (id: string, version: string, cells: CellResult[]): TargetResult => ({
  id,
  version,
  config: {},
  unavailable: null,
  cells,
  metric: computeMetric(cells),
  description: {
    label: id,
    model: false,
    versions: {},
    store: 'SQLite',
    config: {},
    detection: 'audit',
    contexts: 2,
    tooling: 'SQL',
  },
});
const report = (targets: TargetResult[]): IntegrityReport => ({
  version: 1,
  date: '2026-12-04T10:00:00.000Z',
  command: 'pnpm integrity',
  environment: { node: '20', platform: 'linux', recordsPerContext: 5 },
  targets,
  exitCode: 1,
});

describe('one store at two versions', () => {
  const now = target('store', 'store 0.1.1', [
    cell('T1', 'reported'),
    cell('T2', 'reported'),
    cell('T8', 'accepted', 'unrevoke'),
  ]);
  const before = target('store@0.1.0', 'store 0.1.0', [
    cell('T1', 'reported'),
    cell('T2', 'accepted'),
    cell('T8', 'not-evaluable', 'unrevoke'),
  ]);

  it('pairs <id>@<version> with <id> and lists every verdict the version flipped, variants included', () => {
    const pairs = versionPairs(report([now, before, target('lonely@1.0', 'lonely 1.0', [])]));
    expect(pairs).toHaveLength(1);
    expect(pairs[0]?.flips).toEqual([
      { cell: 'T2', base: 'reported (audit)', other: 'accepted' },
      { cell: 'T8:unrevoke', base: 'accepted', other: 'not-evaluable' },
    ]);
    expect(versionPairsMarkdown(pairs)).toContain(
      '- **store** (store 0.1.1) beside **store@0.1.0** (store 0.1.0): 2 verdict(s) flipped with the version, a finding: T2 reported (audit) at store, accepted at store@0.1.0; T8:unrevoke accepted at store, not-evaluable at store@0.1.0',
    );
  });

  it('pnpm report writes versions.md and prints it only for a run holding both', () => {
    expect(Object.keys(integritySuiteReport.render(report([now])))).not.toContain('versions.md');
    expect(integritySuiteReport.text(report([now]))).not.toContain('two versions');
    expect(integritySuiteReport.render(report([now, before]))['versions.md']).toContain('2 verdict(s) flipped');
    expect(integritySuiteReport.text(report([now, target('store@0.2', 'store 0.2', now.cells)]))).toContain(
      'no verdict differs',
    );
  });
});
