// The PoEM paper's Table IV (grounding-check overhead against one LLM call, bytes per ledger event) and Table V (PoEM
// in a LangChain agent), from forged-reasoning runs; real models and sim apart.
import type { OverheadRow } from '../forged-reasoning/forged-reasoning-overhead.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { missingCell, valueCell } from '../table-cells.js';
import { cellOf, DEFENCE_COLUMNS, NOTE, perGroup, pooled, tableOf, type ForgedReasoningInput } from './poem-tables.js';

const IV_COLUMNS = {
  checks: 'PoEM checks measured',
  lines: 'ledger events at the check (median)',
  check: 'grounding check (µs, median)',
  bytes: 'bytes/event',
  call: 'model call (ms, median)',
  share: "check's share of one call (ppm)",
} as const;

/** One row's cells: a value where the run measured one, else `n/a` with the reason. */
function overheadCells(row: OverheadRow, label: string): TableCell[] {
  const cell = (column: string, value: number | null, reason: string) =>
    value === null
      ? missingCell(label, column, 'model-dependent', reason)
      : valueCell(label, column, value, 'model-dependent');
  const old = 'not measured: records written before issue #29';
  return [
    valueCell(label, IV_COLUMNS.checks, row.checks, 'model-dependent'),
    cell(IV_COLUMNS.lines, row.ledgerLines, 'no PoEM check in this run'),
    cell(
      IV_COLUMNS.check,
      row.checkMicros,
      row.checks === 0 ? 'no PoEM check in this run (--defences without poem)' : old,
    ),
    cell(IV_COLUMNS.bytes, row.bytesPerEvent, `no stored ledger with a genuine event (or ${old})`),
    cell(IV_COLUMNS.call, row.callMs, row.cachedCalls > 0 ? 'every call was a response-cache hit (not timed)' : old),
    cell(IV_COLUMNS.share, row.share === null ? null : row.share * 1e6, 'needs a measured check and a measured call'),
  ];
}

function tableIV(inputs: readonly ForgedReasoningInput[], group?: 'real' | 'sim'): PaperTable {
  const rows = inputs.flatMap((input) => (input.summary.overhead ?? []).map((row) => ({ row, runId: input.runId })));
  const label = (row: OverheadRow, runId: string) => `${row.modelLabel}${inputs.length > 1 ? ` (${runId})` : ''}`;
  const cells = rows.flatMap(({ row, runId }) => overheadCells(row, label(row, runId)));
  const cached = rows.reduce((total, { row }) => total + row.cachedCalls, 0);
  const notes = [
    "Measured in this run, never copied: the grounding check is the PoEM gate's check (verify the stored chain, then look the subject up), timed around the gate in the trusted layer; the model call is the same run's decision calls, timed around the model (response-cache hits left out" +
      (cached > 0 ? `: ${cached} here` : '') +
      "); bytes/event is the stored ledgers' bytes over their events (ledgers with a line forged by attack A left out). ppm: parts per million of one call (1,000 ppm = 0.1 %). The paper's ledger sizes N = 10 … 100,000 are `pnpm bench`'s; a run's ledgers hold the few events of one decision.",
    ...(rows.some(({ row }) => row.simulated)
      ? [
          'sim (simulated): the model call is the offline simulator answering in process, not a language model; its share says nothing about an LLM call.',
        ]
      : []),
  ];
  return tableOf(
    'poem-IV',
    "PoEM Table IV: the grounding check's overhead against one model call, bytes per ledger event",
    inputs,
    cells,
    Object.values(IV_COLUMNS),
    notes,
    group,
  );
}

/** Table V's rows: per scenario, the basic and adaptive ASR and the benign legitimate-skip rate (all styles). */
const V_METRICS: readonly [string, string, string][] = [
  ['asr', 'basic', 'basic ASR'],
  ['asr', 'adaptive', 'adaptive ASR'],
  ['legitimate-skip', '*', 'benign skip'],
];

function tableV(inputs: readonly ForgedReasoningInput[], group?: 'real' | 'sim'): PaperTable {
  const scenarios = [
    ...new Set(inputs.flatMap((input) => input.summary.cells.map((c) => c.scenario).filter((s) => s !== '*'))),
  ];
  const models = [...new Set(inputs.flatMap((input) => input.summary.cells.map((c) => c.model)))];
  const cells = models.flatMap((model) =>
    scenarios.flatMap((scenario) =>
      V_METRICS.flatMap(([metric, condition, name]) =>
        DEFENCE_COLUMNS.flatMap(([defence, column]) =>
          cellOf(
            `${model} / ${scenario} / ${name}`,
            column,
            pooled(
              inputs,
              (c) => c.metric === metric && c.condition === condition && c.model === model && c.defence === defence,
              scenario,
            ),
          ),
        ),
      ),
    ),
  );
  const notes = [
    "The agent is a LangChain.js tool-calling agent (@langchain/core: the model bound to one tool() per allowed action, a tool-calling loop over LangChain messages); the defence wraps the tools' execution (PoEM, NaivePoEM) or screens memory writes (sentinel-style), the agent is the same under each. Benign skip: the benign traces' legitimate-skip rate, all styles.",
    NOTE,
  ];
  const columns = DEFENCE_COLUMNS.map(([, column]) => column);
  return tableOf('poem-V', 'PoEM Table V: PoEM in a LangChain agent', inputs, cells, columns, notes, group);
}

/** Table IV of every forged-reasoning run. */
export const buildPoemTableIV = perGroup(tableIV);

/** Table V of the runs whose agent is the LangChain agent (`--agent langchain`); none otherwise. */
export const buildPoemTableV = (inputs: readonly ForgedReasoningInput[] | undefined): PaperTable[] =>
  perGroup(tableV)(inputs?.filter((input) => input.summary.agent === 'langchain'));
