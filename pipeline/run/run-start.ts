// The start of one run under its lock: the invocation's fingerprint, the run log's repair and the manifest `started`.
import { join } from 'node:path';
import { engineRecords } from '../../backends/engines.js';
import { SYSTEMS } from '../../backends/index.js';
import { recordOf } from '#core/registry.js';
import { axesTurnedOn } from '../defences/axes/index.js';
import { defenceRecords } from '../defences/registry.js';
import { embedderRecord } from '../models/embedder-record.js';
import { EXPERIMENTS, experimentRecord } from './experiments.js';
import { sha256, writeJsonAtomic } from '../run-log/json-files.js';
import { promptFingerprint } from '../suites/grid/prompt-fingerprint.js';
import type { RunFingerprint } from './resume-check.js';
import type { RunEnvironment } from './run-environment.js';
import { RUN_LOG_VERSION, type RunManifest } from '../run-log/run-log.js';
import { prepareRunLog } from '../run-log/run-log-repair.js';
import { runBinding } from './run-binding.js';
import type { EvalPhaseRulesV1 } from './eval-phase-v1.js';
import type { RunParts } from './run-parts.js';
import type { RunSession } from './run-session.js';
import { specHash, type RunSpec } from './run-spec.js';
import { checkSameShard, shardOf } from './shard.js';
import { limitedLine, limitedOf } from './unit-limit.js';

/** This invocation's scenarios, prompts, revision and packages: what a resume must match. */
export function runFingerprint(spec: RunSpec, parts: RunParts, environment: RunEnvironment): RunFingerprint {
  return {
    scenarios: parts.ownScenarios.map((s) => ({ id: s.id, sha256: sha256(JSON.stringify(s)) })),
    prompts: promptFingerprint(spec.experiment),
    revision: environment.revision(),
    packages: environment.packages(),
  };
}

/** What the manifest asks of the run's eval phase: its refusals, axes, identity and extra components. */
export type ManifestRules = Pick<
  EvalPhaseRulesV1<RunSpec, unknown>,
  'refuses' | 'axes' | 'specIdentity' | 'runIdPrefix' | 'components'
>;

/**
 * Verifies the run log under the lock before anything is appended (torn last lines go to `<file>.torn` and their units
 * re-run), then writes and returns the manifest with status `started`.
 */
export function startManifest(
  spec: RunSpec,
  parts: RunParts,
  session: RunSession,
  fingerprint: RunFingerprint,
  log: (line: string) => void,
  phase: ManifestRules,
): RunManifest {
  const { runId, runDir, models, embedder, extraction, modelComponents } = parts;
  const { previous } = session;
  const shard = shardOf(spec, phase);
  checkSameShard(runDir, previous, shard);
  const logHeads = prepareRunLog(runDir, previous, log);
  const limited = limitedOf(spec, phase);
  const now = new Date().toISOString();
  const manifest: RunManifest = {
    ...session.manifestFor({
      version: RUN_LOG_VERSION,
      runId,
      status: 'started',
      simulated:
        models.some((m) => m.description.simulated) ||
        ((spec.modes.includes('natural') ||
          spec.arms.some((arm) => EXPERIMENTS.get(spec.experiment).ingestingArms.includes(arm))) &&
          extraction.simulated),
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
      spec,
      specHash: specHash(spec, phase),
      ...(shard ? { shard } : {}),
      ...(limited ? { limited } : {}),
      models: models.map((m) => m.description),
      embedder: embedderRecord(embedder),
      extraction: { id: extraction.id, simulated: extraction.simulated },
      systems: [],
      components: [
        experimentRecord(spec),
        ...phase.components(spec),
        ...engineRecords(spec.engine),
        ...[embedder, extraction, ...modelComponents].flatMap((component) => recordOf(component) ?? []),
        ...spec.systems.map((id) => SYSTEMS.record(id)),
        ...defenceRecords(spec.arms, axesTurnedOn(spec)),
      ],
      ...fingerprint,
      runtime: { node: process.version, platform: `${process.platform}-${process.arch}` },
      modelsOnProviderDefaultTemperature: [],
    }),
    logHeads,
  };
  // The spec as this manifest holds it (a resume keeps the first one) and summary.json as it is now.
  manifest.bound = runBinding(runDir, manifest.spec);
  writeJsonAtomic(join(runDir, 'manifest.json'), manifest);
  if (previous) log(`resuming ${runDir} (status was ${previous.status})`);
  if (limited) log(limitedLine(limited));
  return manifest;
}
