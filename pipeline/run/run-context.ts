// What the experiment phases of one run share: its control (stops, progress, spend), the systems it loads, its log and
// its ending (the final manifest and the exit code, the same for every experiment).
import { join } from 'node:path';
import { loadBackend } from '../../backends/index.js';
import type { MemoryBackend } from '../../backends/memory-backend.js';
import { writeJsonAtomic } from '../run-log/json-files.js';
import { progressStyle } from './progress.js';
import { formatAccount, type RunAccount } from './run-accounting.js';
import { neo4jServerOf, type RunSecrets } from './run-components.js';
import { createRunControl, runEnding, type RunEnding } from './run-control.js';
import type { RunManifest } from '../run-log/run-log.js';
import { readLogHeads } from '../run-log/run-log-repair.js';
import { runBinding } from './run-binding.js';
import { embedderRecord } from '../models/embedder-record.js';
import type { RunParts } from './run-parts.js';
import type { Redactor } from './redact.js';
import type { RunSpec } from './run-spec.js';

/** The invocation's process-level options the experiment phases use. */
export interface RunContextOptions {
  /** Aborted by the CLI on SIGINT/SIGTERM (reason: `{ kind: 'interrupted', signal }`). */
  signal?: AbortSignal;
  /** Progress output (default stderr) and whether it is a terminal. */
  progress?: { write: (text: string) => void; isTTY: boolean | undefined; env: NodeJS.ProcessEnv };
}

/** One run after its start: everything the setup, experiment and follow-up phases receive. */
export interface RunContext {
  spec: RunSpec;
  secrets: RunSecrets;
  parts: RunParts;
  /** The manifest as written at the start. */
  manifest: RunManifest;
  /** Why the run stops (signal, breaker, budget), its progress and spend. */
  control: ReturnType<typeof createRunControl>;
  /** Loads a memory system for this process: its namespaces and work files carry the session's nonce. */
  loadSystem: (id: string, settings: Parameters<typeof loadBackend>[1]) => Promise<MemoryBackend>;
  /** The stop signal, the budget hook and the redactor every phase takes. */
  stops: {
    /** Aborted by every stop: no unit starts after it. */
    signal: AbortSignal;
    /** Aborted by an interrupt or the breaker, not by the budget: the signal decision calls take. */
    callSignal: AbortSignal;
    onBudget: ReturnType<typeof createRunControl>['budgetExhausted'];
    redact: Redactor;
  };
  /** Logs a unit that ended in an error. */
  logError: (unitId: string, status: string, message: string | undefined) => void;
  /** Writes the final manifest (status, counts, spend, provenance) and returns the ending. */
  finish: (account: RunAccount) => RunEnding;
  /** The spend lines printed under the result table. */
  spendLines: (account: RunAccount) => string[];
  log: (line: string) => void;
}

/** Inputs of `createRunContext`. */
export interface RunContextInput {
  spec: RunSpec;
  secrets: RunSecrets;
  parts: RunParts;
  manifest: RunManifest;
  /** The manifest as found, for a resume. */
  previous: RunManifest | undefined;
  /** This process's nonce. */
  nonce: string;
  options: RunContextOptions;
  redact: Redactor;
  log: (line: string) => void;
}

/** Creates the run's control and the shared hooks of its experiment phases. */
export function createRunContext(input: RunContextInput): RunContext {
  const { spec, parts, nonce, options, redact, log } = input;
  const control = controlOf(spec, options, parts.priceOf);
  parts.attempts.listen(control);
  const systemsSeen: RunManifest['systems'] = [];
  const loadSystem = async (id: string, settings: Parameters<typeof loadBackend>[1]) => {
    // Every namespace and work file of this process carries its nonce (backends/run-namespace.ts).
    const neo4j = neo4jServerOf(input.secrets);
    const backend = await loadBackend(id, {
      ...settings,
      engine: parts.engine,
      ...(neo4j ? { neo4j } : {}),
      nonce,
      workDir: join(settings.workDir, nonce),
    });
    systemsSeen.push({ id, summary: backend.description.summary });
    return backend;
  };
  const { budget } = parts;
  return {
    spec,
    secrets: input.secrets,
    parts,
    manifest: input.manifest,
    control,
    loadSystem,
    stops: { signal: control.signal, callSignal: control.callSignal, onBudget: control.budgetExhausted, redact },
    logError: (unitId, status, message) => {
      if (status === 'error') log(`${unitId}: error: ${message ?? ''}`);
    },
    finish: (account) => finishRun(input, control, systemsSeen, account),
    spendLines: (account) =>
      formatAccount(account, {
        budget: budget?.totals() ?? null,
        invocation: control.invocationUsage(),
        // A resumed run's records include earlier invocations': this invocation's share is said beside the total.
        resumed: input.previous !== undefined,
      }),
    log,
  };
}

/** The run's control: the external signal, the error breaker, progress on stderr (or `options.progress`) and cost. */
function controlOf(spec: RunSpec, options: RunContextOptions, priceOf: RunParts['priceOf']) {
  const progress = options.progress ?? {
    write: (text: string) => void process.stderr.write(text),
    isTTY: process.stderr.isTTY,
    env: process.env,
  };
  return createRunControl({
    ...(options.signal ? { external: options.signal } : {}),
    maxConsecutiveErrors: spec.control.maxConsecutiveErrors,
    maxErrorRate: spec.maxErrorRate,
    concurrency: spec.concurrency,
    progress: {
      write: progress.write,
      style: progressStyle({ quiet: spec.control.quiet, isTTY: progress.isTTY, env: progress.env }),
    },
    priceOf,
  });
}

/** The final manifest (status, counts, spend, provenance) and the exit code: the same for every experiment. */
function finishRun(
  input: RunContextInput,
  control: ReturnType<typeof createRunControl>,
  systemsSeen: RunManifest['systems'],
  account: RunAccount,
): RunEnding {
  const { spec, parts, manifest, previous } = input;
  const { runDir, budget, embedder, modelComponents } = parts;
  control.finish();
  const ending = runEnding({
    units: account.units,
    errored: account.errored,
    failedUnits: account.failedUnits,
    completed: account.completed,
    unparseable: account.unparseable,
    maxErrorRate: spec.maxErrorRate,
    stop: control.stopped,
  });
  const budgetTotals = budget?.totals();
  writeJsonAtomic(join(runDir, 'manifest.json'), {
    ...manifest,
    embedder: embedderRecord(embedder), // the endpoint has answered by now: vector length and served model
    status: ending.status,
    updatedAt: new Date().toISOString(),
    systems: systemsSeen.length > 0 ? systemsSeen : (previous?.systems ?? []),
    modelsOnProviderDefaultTemperature: modelComponents.flatMap(
      (component) => component.capabilities.temperatureFallbacks?.() ?? [],
    ),
    counts: {
      units: account.units,
      done: account.done,
      errors: account.errored,
      skippedAsDone: 0,
      cacheHits: account.cacheHits,
      cacheMisses: account.cacheMisses,
    },
    usage: account.usage,
    provenance: account.provenance,
    ...(budgetTotals
      ? {
          budget: {
            limitUsd: budgetTotals.limitUsd,
            spentUsd: budgetTotals.spentUsd,
            callsWithUnknownCost: budgetTotals.callsWithUnknownCost,
          },
        }
      : {}),
    ...(ending.why && ending.exitCode !== 0 ? { error: { message: ending.why } } : {}),
    ...(parts.pool ? { endpoints: parts.pool.counts() } : {}),
    logHeads: readLogHeads(runDir),
    bound: runBinding(runDir, manifest.spec), // summary.json was written just before: bound with the heads, in one write
  } satisfies RunManifest);
  return ending;
}
