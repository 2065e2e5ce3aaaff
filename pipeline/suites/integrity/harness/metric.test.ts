import { describe, expect, it } from 'vitest';
import type { CellResult, EditId, TargetResult, Verdict } from './integrity-result.js';
import { computeMetric, exitCode } from './metric.js';
import { skippedCell } from './procedure.js';

const cell = (
  edit: EditId,
  verdict: Verdict,
  detection: 'read' | 'audit' | null = null,
  variant: string | null = null,
): CellResult => ({
  ...skippedCell({ edit, variant: null }, 'n/a', ''),
  variant,
  verdict,
  detection,
  controls: { c1: { ok: true, detail: '' }, c2: { ok: true, detail: '' }, c3: { ok: true, detail: '' } },
});
const row = (cells: CellResult[]): TargetResult => ({
  id: 't',
  version: 'v',
  config: {},
  description: {} as TargetResult['description'],
  unavailable: null,
  cells,
  metric: computeMetric(cells),
});

describe('metric (integrity.md §7.1)', () => {
  it('(passes + 0.5 · partial) / N, with n/a out of N and T9 apart', () => {
    const metric = computeMetric([
      cell('T1', 'rejected', 'read'),
      cell('T2', 'accepted'),
      cell('T3', 'reported', 'audit'),
      cell('T4', 'n/a'),
      cell('T5', 'reported', 'read'),
      cell('T6', 'reported', 'audit'),
      cell('T7', 'rejected', 'read'),
      cell('T8', 'n/a'),
      cell('T9', 'accepted'),
    ]);
    expect(metric).toMatchObject({
      value: (3 + 0.5 * 2) / 6,
      n: 6,
      passes: 3,
      partial: 2,
      accepted: 1,
      t9: 'accepted',
    });
    expect(metric.passes).toBe(3);
    expect(metric.tamperEvidence).toEqual({ value: (2 + 0.5) / 4, n: 4 });
    expect(metric.binding).toEqual({ value: (1 + 0.5) / 2, n: 2 });
  });

  it('is not computed when a control failed, or when an applicable cell has no verdict', () => {
    const failed = {
      ...cell('T3', 'not-evaluable'),
      controls: { c1: { ok: false, detail: 'x' }, c2: { ok: true, detail: '' }, c3: { ok: null, detail: '' } },
    };
    const rest = (['T1', 'T2', 'T4', 'T5', 'T6', 'T7', 'T8'] as const).map((edit) => cell(edit, 'rejected', 'read'));
    expect(computeMetric([...rest, failed])).toMatchObject({
      value: null,
      reason: expect.stringContaining('a control failed on T3'),
    });
    const withError = (['T1', 'T2', 'T3', 'T4', 'T5', 'T7', 'T8'] as const).map((edit) =>
      cell(edit, 'rejected', 'read'),
    );
    expect(computeMetric([...withError, cell('T6', 'error')])).toMatchObject({
      value: null,
      reason: 'not computed: no verdict for T6 (error)',
      binding: { value: null, n: 3 },
      tamperEvidence: { value: 1, n: 5 },
    });
  });

  it('variants are reported beside the metric, never in it', () => {
    const all = (['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8'] as const).map((edit) =>
      cell(edit, 'rejected', 'read'),
    );
    expect(computeMetric([...all, cell('T8', 'accepted', null, 'unrevoke')])).toMatchObject({
      value: 1,
      n: 8,
      accepted: 0,
    });
  });

  it('a subset of T1–T8 (--edits) gives no metric: an edit not run is never counted as a pass', () => {
    expect(computeMetric([cell('T1', 'rejected', 'read'), cell('T9', 'accepted')])).toMatchObject({
      value: null,
      reason: 'not computed: T2, T3, T4, T5, T6, T7, T8 not run',
      n: 1,
      passes: 1,
      tamperEvidence: { value: null, n: 1 },
      binding: { value: null, n: 0 },
      t9: 'accepted',
    });
  });
});

describe('exit codes (integrity.md §7.2), precedence 2 > 3 > 1 > 0', () => {
  it('0 / 1 / 3 / 2', () => {
    expect(exitCode([row([cell('T1', 'rejected', 'read'), cell('T2', 'reported', 'audit')])])).toBe(0);
    expect(exitCode([row([cell('T1', 'rejected', 'read'), cell('T2', 'accepted')])])).toBe(1);
    expect(exitCode([row([cell('T1', 'accepted')])], 'none')).toBe(0);
    expect(exitCode([row([cell('T1', 'accepted'), cell('T2', 'error')])])).toBe(3);
    expect(exitCode([row([cell('T1', 'not-evaluable'), cell('T2', 'error')])])).toBe(2);
    expect(exitCode([row([cell('T1', 'n/a')]), row([cell('T1', 'not-evaluable')])])).toBe(2);
  });
});
