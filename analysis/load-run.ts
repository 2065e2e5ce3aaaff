// Reads a run directory (manifest, probes, unit records) and rebuilds its summary: no network, no backend, no model.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  axisChoiceOf,
  forEachJsonLine,
  priorStepDesignOf,
  readJsonLines,
  runLogVersionProblem,
  type ProbeRecord,
  type RunManifest,
  type UnitRecord,
} from '../pipeline/index.js';
import { summarize, summaryRecordOf, type Summary, type SummaryRecord } from './grid/summarize.js';

/** A run as stored on disk. The last line of a probe or unit wins (a retried error is superseded). */
export interface LoadedRun {
  runDir: string;
  manifest: RunManifest;
  probes: Map<string, ProbeRecord>;
  records: Map<string, UnitRecord>;
}

/** A run's manifest and probes without its unit records (streamed from records.jsonl where needed). */
export type RunHead = Omit<LoadedRun, 'records'>;

/**
 * A manifest's `version` checked inside a zod schema of the fields a reader reads: a run-log version this code reads
 * (analysis/load-run.ts's rule), else the reason in words (version 1, a newer stalebench's version).
 */
export const runLogVersionField = z.number().superRefine((version, context) => {
  const problem = runLogVersionProblem(version);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** Loads a run directory; a missing manifest is an error naming the path. */
export function loadRun(runDir: string): LoadedRun {
  return { ...readRunHead(runDir), records: readRunRecords(runDir, (record) => record) };
}

/** A run's manifest (checked) and probes, without its unit records. */
export function readRunHead(runDir: string): RunHead {
  const manifestPath = join(runDir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath}: no manifest; is ${runDir} a run directory?`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as RunManifest;
  // Version 1 (its numbers cannot be trusted as is) and versions newer than this code are refused with the reason.
  const problem = runLogVersionProblem(manifest.version);
  if (problem) throw new Error(`${manifestPath}: ${problem}`);
  const probes = new Map<string, ProbeRecord>();
  for (const probe of readJsonLines<ProbeRecord>(join(runDir, 'setup.jsonl')).rows)
    probes.set(`${probe.system}/${probe.mode}/${probe.scenario}`, probe);
  return { runDir, manifest, probes };
}

/**
 * `records.jsonl` streamed (one line at a time), each record reduced by `project` as it is read: the last line of a
 * unit wins. With `summaryRecordOf` a run of any size is summarised without holding its records.
 */
export function readRunRecords<T>(runDir: string, project: (record: UnitRecord) => T): Map<string, T> {
  const records = new Map<string, T>();
  forEachJsonLine<UnitRecord>(join(runDir, 'records.jsonl'), (record) => records.set(record.unitId, project(record)));
  return records;
}

/** The summary of a stored run, its records streamed (`summaryRecordOf`): what `pnpm rescore` checks summary.json against. */
export function summarizeStoredRun(runDir: string): Summary {
  return summarizeRun({ ...readRunHead(runDir), records: readRunRecords(runDir, summaryRecordOf) });
}

/**
 * The summary of a loaded run, computed from its stored records only (what `pnpm eval` writes, and `rescore` checks);
 * `records` holds each unit's last record (a map by unit id, or a list).
 */
export function summarizeRun(
  run: Pick<LoadedRun, 'manifest' | 'probes'> & { records: { values(): Iterable<SummaryRecord> } },
): Summary {
  const { spec, models } = run.manifest;
  let hits = 0;
  let misses = 0;
  for (const record of run.records.values()) {
    if (record.reply?.cached) hits += 1;
    else if (record.reply && record.reply.attempts > 0) misses += 1;
  }
  const summary = summarize({
    models: models.map((m) => ({ id: m.id, label: m.label, simulated: m.simulated })),
    systems: spec.systems,
    modes: spec.modes,
    arms: spec.arms,
    axes: axisChoiceOf(spec),
    poemPriorStep: priorStepDesignOf(run.manifest) !== null,
    scenarios: spec.scenarios,
    probes: run.probes,
    records: run.records.values(),
    cache: { hits, misses },
  });
  return {
    ...summary,
    ...(run.manifest.usage ? { usage: run.manifest.usage } : {}),
    ...(run.manifest.limited ? { limited: run.manifest.limited } : {}),
  };
}
