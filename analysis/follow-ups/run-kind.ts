// The follow-up run kinds (`pnpm eval --experiment writeback|propagation|tools`): units in `<experiment>.jsonl`,
// Tables 14, 15 and 16. Three entries from one factory; they differ in their rows, scenarios and notes.
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import type { FollowUpRecord, PropagationRecord, ToolsRecord, WritebackRecord } from '../../pipeline/index.js';
import { embedderOf } from '../grid/grid-index.js';
import { SUMMARY_VERSION } from '../grid/summarize.js';
import type { LoadedRun, RunHead } from '../load-run.js';
import { POEM_NOT_RECHECKED } from '../recompute-poem.js';
import { followUpPlannedUnits } from '../run-progress.js';
import { evalManifestSchema, unitKeyFields, validateFile } from '../run-kinds/report-checks.js';
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';
import { propagationSections, toolsSections, writebackSections } from '../view/unit-sections.js';
import { formatFollowUpSummary } from './format-follow-up.js';
import {
  loadFollowUpRecords,
  propagationRows,
  summarizeFollowUpRecords,
  toolsRows,
  writebackRows,
  type FollowUpRowsOf,
  type FollowUpSummary,
} from './follow-up-summary.js';
import { recomputeFollowUp } from './recompute-follow-up.js';

const recordSchema = z.object({
  unitId: z.string().min(1),
  key: z.object({ ...unitKeyFields, guard: z.boolean(), poem: z.boolean() }),
  status: z.enum(['ok', 'error', 'not-applicable']),
});

/** What sets one follow-up kind apart from the others. */
export interface FollowUpKindSettings {
  id: FollowUpSummary['experiment'];
  /** Its table's rows from its records. */
  rowsOf: FollowUpRowsOf;
  /** Policy scenarios (one decision per hop or role) or exploit scenarios (tool agents). */
  scenarios: 'policy' | 'exploit';
  /** A simulated extraction model makes the run sim too (natural write-back ingests the journal through it). */
  extractionMakesSim: boolean;
  /** What `not rechecked` says about PoEM traces when the gate was on. */
  poemNotRechecked: string;
  /** Appended to the parser-moves note of `pnpm rescore --parser strict`, or ''. */
  parserNote: string;
  /** The viewer's sections of one of its stored lines. */
  sections: (row: unknown) => string | null;
  /** The viewer draws its tables' figures (write-back hops, propagation roles; tools has none drawn). */
  figures: boolean;
}

/** A follow-up run's summary from its own records (the last line of a unit wins). */
function summaryOf(run: LoadedRun, settings: FollowUpKindSettings): FollowUpSummary {
  return summarizeFollowUpRecords(run, loadFollowUpRecords(run.runDir, settings.id), settings.rowsOf);
}

/** A follow-up run kind. */
function createFollowUpRunKind(settings: FollowUpKindSettings): RunKindV1 {
  const { id } = settings;
  const manifestSchema = evalManifestSchema(z.literal(id));
  return {
    specificationVersion: 'v1',
    id,
    report: {
      check(runDir, manifestPath) {
        validateFile(manifestPath, manifestSchema, false);
        if (validateFile(join(runDir, `${id}.jsonl`), recordSchema, true) === 0)
          throw new InvalidInputError(join(runDir, `${id}.jsonl`), [
            { path: '', message: `missing or empty: a ${id} run records its units there` },
          ]);
      },
      unitsDone: (run) => loadFollowUpRecords(run.runDir, id).length,
      plannedUnits: followUpPlannedUnits,
      tableInput(run) {
        const extraction =
          settings.extractionMakesSim &&
          run.manifest.spec.arms.includes('natural') &&
          run.manifest.extraction?.simulated === true;
        const summary = summaryOf(run, settings);
        return {
          followUp: {
            runId: run.manifest.runId,
            simulated: run.manifest.simulated || extraction,
            summary,
            embedder: embedderOf(run),
          },
        };
      },
      paper: 'stalebench',
    },
    rescore: {
      scenarios: settings.scenarios,
      async recompute({ run, scenarios, rules, parser, log }) {
        const followUp = await recomputeFollowUp({ run, scenarios, rules, parser, log });
        return {
          summary: { version: SUMMARY_VERSION, ...summarizeFollowUpRecords(run, followUp.records, settings.rowsOf) },
          grid: null,
          lines: followUp.lines,
          oracleSystems: followUp.oracleSystems,
          notRechecked: [
            "follow-up journals (their text, what the store stored, the census) are the store's side of the experiment: kept as stored",
          ],
        };
      },
      poemNotRechecked: settings.poemNotRechecked,
      guardRescore: false,
      format: (summary) => formatFollowUpSummary(summary as FollowUpSummary),
      summaryEntries: 'rows',
      parserNote: settings.parserNote,
    },
    viewer: { index: 'generic', figures: settings.figures, sections: settings.sections },
  };
}

/** Write-back: a decision per hop, journals written back into the store (Table 14). */
const writeback: FollowUpKindSettings = {
  id: 'writeback',
  rowsOf: (run, all) => ({ writeback: writebackRows(run, all as WritebackRecord[]) }),
  scenarios: 'policy',
  extractionMakesSim: true,
  poemNotRechecked: POEM_NOT_RECHECKED,
  parserNote: '',
  sections: writebackSections,
  figures: true,
};

/** Propagation: executor, reviewer and planner read the same store (Table 15). */
const propagation: FollowUpKindSettings = {
  id: 'propagation',
  rowsOf: (run, all) => ({ propagation: propagationRows(run, all as PropagationRecord[]) }),
  scenarios: 'policy',
  extractionMakesSim: false,
  poemNotRechecked: POEM_NOT_RECHECKED,
  parserNote: '',
  sections: propagationSections,
  figures: true,
};

/** Tools: tool-calling agents on exploit scenarios (Table 16). */
const tools: FollowUpKindSettings = {
  id: 'tools',
  rowsOf: (run, all) => ({ tools: toolsRows(run, all as ToolsRecord[]) }),
  scenarios: 'exploit',
  extractionMakesSim: false,
  poemNotRechecked:
    "PoEM (tools): the gate is re-run on a fresh ledger per episode; each verdict's MAC head and reason text depend on the run's ledger and are kept as recorded",
  parserNote: ' The tools experiment parses tool calls, not actions: no parser applies to it.',
  sections: toolsSections,
  figures: false,
};

/** Write-back, propagation and tools, in report order (one registry line for the three). */
export const followUpRunKinds: readonly RunKindV1[] = [writeback, propagation, tools].map(createFollowUpRunKind);

const SETTINGS = new Map([writeback, propagation, tools].map((settings) => [settings.id as string, settings]));

/**
 * The follow-up summary of `records` (one per unit, as stored) of the run `run` heads; a run of another kind is an
 * error naming it.
 */
export function summarizeFollowUp(run: RunHead, records: readonly FollowUpRecord[]): FollowUpSummary {
  const experiment = run.manifest.spec.experiment ?? 'grid';
  const settings = SETTINGS.get(experiment);
  if (!settings) throw new TypeError(`${experiment} is not a follow-up experiment`);
  return summarizeFollowUpRecords(run, records, settings.rowsOf);
}
