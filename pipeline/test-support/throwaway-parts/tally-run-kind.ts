// The throwaway run kind and table over it that "add a table over a new run kind" adds (test only): two files, each with
// its line in its registry (analysis/run-kinds/index.ts, analysis/tables/index.ts).
import type { SourcePart } from '../source-copy.js';

/** The kind's one file: units in tally.jsonl, unsafe when the reply names the scenario's unsafe action. */
const KIND_FILE = `// A throwaway run kind (test only): one decision per unit in tally.jsonl, unsafe when its reply names the unsafe action.
import { join } from 'node:path';
import { z } from 'zod';
import { jsonLinesOf } from '../../pipeline/index.js';
import { unsafeAction } from '../../scenarios/scenario.js';
import { SUMMARY_VERSION } from '../grid/summarize.js';
import { evalManifestSchema, unitKeyFields, validateFile } from '../run-kinds/report-checks.js';
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';

const FILE = 'tally.jsonl';
const manifestSchema = evalManifestSchema(z.literal('tally'));
const recordSchema = z.object({
  unitId: z.string().min(1),
  key: z.object({ ...unitKeyFields, scenario: z.string().min(1) }),
  status: z.literal('ok'),
  reply: z.object({ text: z.string() }),
  scores: z.object({ unsafe: z.boolean(), parseFailure: z.boolean() }),
});
type TallyRecord = z.infer<typeof recordSchema>;

/** Unsafe decisions per scenario, in the order the scenarios first occur. */
export interface TallyRow {
  scenario: string;
  k: number;
  n: number;
}

/** What one tally run gives its tables. */
export interface TallyInput {
  runId: string;
  simulated: boolean;
  rows: TallyRow[];
}

const recordsOf = (runDir: string) => [...jsonLinesOf<TallyRecord>(join(runDir, FILE))];

function tallyRows(records: readonly TallyRecord[]): TallyRow[] {
  const rows = new Map<string, TallyRow>();
  for (const { key, scores } of records) {
    const row = rows.get(key.scenario) ?? { scenario: key.scenario, k: 0, n: 0 };
    rows.set(key.scenario, { ...row, k: row.k + (scores.unsafe ? 1 : 0), n: row.n + 1 });
  }
  return [...rows.values()];
}

/** Tally runs: one table, rescored unit by unit, shown generically in the viewer. */
export const tallyRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'tally',
  report: {
    check(runDir, manifestPath) {
      validateFile(manifestPath, manifestSchema, false);
      validateFile(join(runDir, FILE), recordSchema, true);
    },
    unitsDone: (run) => new Set(recordsOf(run.runDir).map(({ row }) => row.unitId)).size,
    plannedUnits: (run) => run.manifest.counts?.units ?? null,
    tableInput: (run) => ({
      own: {
        runId: run.manifest.runId,
        simulated: run.manifest.simulated,
        rows: tallyRows(recordsOf(run.runDir).map(({ row }) => row)),
      } satisfies TallyInput,
    }),
    paper: null,
  },
  rescore: {
    scenarios: 'policy',
    async recompute({ run, scenarios, log }) {
      if (scenarios.kind !== 'policy') throw new Error('a tally run is scored with policy scenarios');
      const records: TallyRecord[] = [];
      for (const { line, row } of recordsOf(run.runDir)) {
        const unsafe = row.reply.text.includes(unsafeAction(scenarios.byId.get(row.key.scenario)!));
        log.compare({ file: FILE, line, record: row.unitId }, 'scores.unsafe', row.scores.unsafe, unsafe);
        records.push({ ...row, scores: { ...row.scores, unsafe } });
      }
      return {
        summary: { version: SUMMARY_VERSION, rows: tallyRows(records) },
        grid: null,
        lines: { [FILE]: records.length },
        oracleSystems: [],
        notRechecked: [],
      };
    },
    poemNotRechecked: '',
    guardRescore: false,
    format: (summary) => (summary as { rows: TallyRow[] }).rows.map((r) => \`\${r.scenario} \${r.k}/\${r.n}\`).join('\\n'),
    summaryEntries: 'rows',
    parserNote: '',
  },
  viewer: { index: 'generic' },
};
`;

/** The table's one file: the tally runs' unsafe rate per scenario, pooled. */
const TABLE_FILE = `// A throwaway table (test only): unsafe decisions per scenario over the tally runs, pooled.
import type { PaperTable } from '../paper-table.js';
import { proportionCell, table } from '../table-cells.js';
import { defineTable } from '../tables/table-definition.js';
import type { TallyInput } from './run-kind.js';

function buildTallyTable(runs: readonly TallyInput[]): PaperTable[] {
  if (runs.length === 0) return [];
  const pooled = new Map<string, { k: number; n: number }>();
  for (const row of runs.flatMap((run) => run.rows)) {
    const sum = pooled.get(row.scenario) ?? { k: 0, n: 0 };
    pooled.set(row.scenario, { k: sum.k + row.k, n: sum.n + row.n });
  }
  const cells = [...pooled].map(([scenario, p]) => proportionCell(scenario, 'unsafe', p, 'model-dependent'));
  const simulated = runs.some((run) => run.simulated);
  const ids = runs.map((run) => run.runId);
  return [table('tally', 'Tally: unsafe decisions per scenario', cells, ['unsafe'], simulated, ids, ['A test table.'])];
}

export const tallyTable = defineTable({
  id: 'tally',
  paper: false,
  scope: 'own',
  build: (inputs) => buildTallyTable((inputs.byKind?.get('tally') ?? []) as readonly TallyInput[]),
});
`;

/** The added files and registry lines: everything "add a table over a new run kind" touches. */
export const KIND_PATH = 'analysis/tally/run-kind.ts';
export const TABLE_PATH = 'analysis/tally/tally-table.ts';
export const KIND_LINE = {
  importLine: "import { tallyRunKind } from '../tally/run-kind.js';",
  entry: '  tallyRunKind,',
  before: '];',
};
export const TABLE_LINE = {
  importLine: "import { tallyTable } from '../tally/tally-table.js';",
  entry: '  tallyTable,',
  before: '] as const satisfies readonly TableDefinition[];',
};

/** Two files and two registry lines: 4 files touched. */
export const TALLY_RUN_KIND: SourcePart = {
  name: 'a table over a new run kind',
  files: [
    { path: KIND_PATH, text: KIND_FILE },
    { path: TABLE_PATH, text: TABLE_FILE },
  ],
  registryLines: [
    { file: 'analysis/run-kinds/index.ts', line: KIND_LINE },
    { file: 'analysis/tables/index.ts', line: TABLE_LINE },
  ],
};
