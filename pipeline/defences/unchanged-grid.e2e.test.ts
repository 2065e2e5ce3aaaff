// Behaviour unchanged (issue #13): the full offline grid — every system, both modes, all six arms, --guard off,on,
// --poem off,on, 2 trials, sim — gives the cells and Table 9 rows the code before defences became registered parts
// gives (data/fixtures/defences/full-grid-cells.tsv: main 2669fd0; its graphiti/direct rows re-captured from
// i17-graphiti 7d6dc36, pre-registry, whose tie order changed them), and rescoring it through the registry changes nothing.
// Its PoEM-on rows only were re-captured for issue #16 item 5 (half of the PoEM-on units run their safety step before
// deciding): each row's former `overridden` count splits into `allowed` (legitimate skips) + `overridden`, and the
// prior-step and skip counts are appended; every other field of those rows and every PoEM-off row is unchanged.
// The natural-mode rows of graphiti, zep-ce and langmem were re-captured for issue #29 item 4: the extraction simulator
// (sim-extractor-v3) now also supersedes instruction_injection's v1 (9/9 of the nine, was 8/9); every direct row and
// every other system's natural row is byte-identical to before.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRun } from '../../analysis/load-run.js';
import { recomputeRun } from '../../analysis/recompute-run.js';
import type { Summary } from '../../analysis/grid/summarize.js';
import { specFromArgs } from '../cli/cli.js';
import { runEvaluation } from '../run/run.js';
import { gridCellLines } from '../test-support/grid-cell-lines.js';
import { ARM_IDS } from './index.js';

const FIXTURE = join(import.meta.dirname, '..', '..', 'data', 'fixtures', 'defences', 'full-grid-cells.tsv');

let runDir: string;
beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-unchanged-grid-'));
  const spec = specFromArgs(
    [
      '--model',
      'sim',
      '--modes',
      'direct,natural',
      '--arms',
      ARM_IDS.slice(0, 6).join(','), // the paper's six arms; later arms (guard-v2, the ledger's) have tests of their own
      '--guard',
      'off,on',
      '--poem',
      'off,on',
      '--trials',
      '2',
      '--no-cache',
      '-q',
      '--out',
      out,
    ],
    {},
  );
  runDir = (await runEvaluation(spec, { apiKey: undefined })).runDir;
}, 300_000);

describe('the full offline grid through the defence registry', () => {
  it('gives every cell and Table 9 row exactly as main did before the change', () => {
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const expected = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
    const actual = gridCellLines(summary);
    expect(actual.length).toBe(expected.length);
    expect(actual).toEqual(expected);
  });

  it('rescores to the same records and summary (rescore applies the same defences)', async () => {
    const recomputed = await recomputeRun(loadRun(runDir));
    expect(recomputed.differences).toEqual([]);
    expect(gridCellLines(recomputed.summary as Summary)).toEqual(readFileSync(FIXTURE, 'utf8').trimEnd().split('\n'));
  }, 120_000);
});
