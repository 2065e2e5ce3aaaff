// Writes the run directory of a merge: one manifest, the setup and unit logs re-chained under the merged run id, and
// the summary computed from them, all in a temporary directory that is renamed into place only when complete.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadRun, summarizeRun, type Summary } from '../../analysis/index.js';
import { InvalidInputError } from '#core/errors.js';
import { writeJsonAtomic } from '../run-log/json-files.js';
import { accountGrid } from '../run/run-accounting.js';
import { RUN_LOG_VERSION, type RunManifest } from '../run-log/run-log.js';
import { openRunLogFile } from '../run-log/run-log-chain.js';
import { readLogHeads } from '../run-log/run-log-repair.js';
import { runBinding } from '../run/run-binding.js';
import type { ModelUsage } from '../run/usage-totals.js';
import { lastProbes } from './merge-agreement.js';
import type { MergePlan } from './merge-shards.js';
import type { ShardRun } from './shard-run.js';
import { makeDirectory } from '#core/make-directory.js';

/** Per-model usage of the shards added up (their replies are disjoint), in the spec's model order. */
function summedUsage(shards: readonly ShardRun[], models: readonly string[]): ModelUsage[] {
  const all = shards.flatMap((s) => s.manifest.usage ?? []);
  return models.flatMap((model) => {
    const parts = all.filter((u) => u.model === model);
    if (parts.length === 0) return [];
    const sum = (of: (u: ModelUsage) => number) => parts.reduce((total, u) => total + of(u), 0);
    return [
      {
        model,
        replies: sum((u) => u.replies),
        sent: sum((u) => u.sent),
        offline: sum((u) => u.offline),
        cacheHits: sum((u) => u.cacheHits),
        attempts: sum((u) => u.attempts),
        inputTokens: sum((u) => u.inputTokens),
        outputTokens: sum((u) => u.outputTokens),
        reasoningTokens: sum((u) => u.reasoningTokens),
        costUsd: parts.some((u) => u.costUsd === null) ? null : sum((u) => u.costUsd!),
        unknownCost: sum((u) => u.unknownCost),
        costSources: { proxy: sum((u) => u.costSources.proxy), price: sum((u) => u.costSources.price) },
      },
    ];
  });
}

/** The merged manifest as first written (status `started`): the first shard's, as one unsplit run named `runId`. */
function startedManifest(plan: MergePlan, runId: string, now: string): RunManifest {
  const { shards } = plan;
  const {
    shard: _shard,
    counts: _counts,
    usage: _usage,
    provenance: _provenance,
    budget: _budget,
    error: _error,
    endpoints: _endpoints,
    logHeads: _logHeads,
    bound: _bound,
    ...base
  } = shards[0]!.manifest;
  const invocations = shards.flatMap((s) => s.manifest.invocations ?? []);
  const resumes = shards.flatMap((s) => s.manifest.resumes ?? []);
  return {
    ...base,
    // Written by this code (with `merged`), whichever readable version the shards were written in.
    version: RUN_LOG_VERSION,
    runId,
    status: 'started',
    spec: { ...base.spec, runId, control: { ...base.spec.control, shard: null } },
    createdAt: shards.map((s) => s.manifest.createdAt).sort()[0]!,
    updatedAt: now,
    modelsOnProviderDefaultTemperature: [
      ...new Set(shards.flatMap((s) => s.manifest.modelsOnProviderDefaultTemperature)),
    ].sort(),
    invocations: invocations.sort((a, b) => a.startedAt.localeCompare(b.startedAt)),
    ...(resumes.length > 0 ? { resumes } : {}),
    merged: shards.map((s) => ({
      runDir: s.runDir,
      runId: s.manifest.runId,
      shard: s.manifest.shard,
      logHeads: s.manifest.logHeads ?? {},
      units: new Set(s.records.map((r) => r.unitId)).size,
    })),
  };
}

/** Writes the merged run into `tmp`: manifest, re-chained logs, final manifest, summary. */
function writeInto(tmp: string, plan: MergePlan, runId: string, now: Date): Summary {
  const { shards } = plan;
  const manifest = startedManifest(plan, runId, now.toISOString());
  writeJsonAtomic(join(tmp, 'manifest.json'), manifest);
  // Every shard's probes, tagged with their shard: their reads agree (merge-agreement.ts), but the stores' record ids
  // are each shard's own, and rescore rebuilds a unit's context from its shard's probe. Units: each shard's lines in
  // its own order, superseded errors included, so a unit's last line is its result as in the shard.
  const setup = openRunLogFile(tmp, 'setup.jsonl');
  for (const shard of shards)
    for (const probe of shard.probes) setup.append({ ...probe, shard: shard.manifest.shard.index });
  const records = openRunLogFile(tmp, 'records.jsonl');
  for (const shard of shards) for (const record of shard.records) records.append(record);
  const loaded = loadRun(tmp);
  const account = accountGrid(plan.units, loaded.records.values(), lastProbes(shards[0]!).values(), () => null);
  const usage = summedUsage(shards, manifest.spec.models);
  const summary: Summary = { ...summarizeRun(loaded), usage };
  writeJsonAtomic(join(tmp, 'summary.json'), summary);
  writeJsonAtomic(join(tmp, 'manifest.json'), {
    ...manifest,
    status: 'success',
    counts: {
      units: plan.units,
      done: account.done,
      errors: account.errored,
      skippedAsDone: 0,
      cacheHits: account.cacheHits,
      cacheMisses: account.cacheMisses,
    },
    usage,
    provenance: account.provenance,
    logHeads: readLogHeads(tmp),
    bound: runBinding(tmp, manifest.spec),
  } satisfies RunManifest);
  return summary;
}

/**
 * Writes the merged run to `out` (a new directory; its name is the run id). Everything is written to a temporary
 * sibling first and renamed into place at the end, so a failure or a kill leaves no partial run at `out`.
 */
export function writeMergedRun(plan: MergePlan, out: string, now = new Date()): { runDir: string; summary: Summary } {
  const runDir = resolve(out);
  const runId = basename(runDir);
  if (!/^[A-Za-z0-9._-]+$/.test(runId))
    throw new InvalidInputError('command line', [
      {
        path: '-o',
        message: `the run id "${runId}" (the directory name) may hold letters, digits, dot, dash and underscore only`,
      },
    ]);
  if (existsSync(runDir))
    throw new InvalidInputError('command line', [
      { path: '-o', message: `${runDir} already exists; a merge writes a new run directory` },
    ]);
  makeDirectory(dirname(runDir));
  const tmp = join(dirname(runDir), `.${runId}.merging-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp);
  try {
    const summary = writeInto(tmp, plan, runId, now);
    renameSync(tmp, runDir);
    return { runDir, summary };
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}
