// Setup phase: seed each (system, mode, scenario) through the system's own write path and probe both reads once.
import { join } from 'node:path';
import type { Embedder } from '../../../backends/embedder.js';
import type {
  BackendSettings,
  MemoryBackend,
  MemoryRecord,
  MemoryWrites,
  SeedMode,
} from '../../../backends/memory-backend.js';
import type { ExtractionModel } from '../../../backends/extraction-model.js';
import { exposureOf, labelRecords } from './exposure.js';
import { episodesFor } from './episodes.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { readJsonLines } from '../../run-log/json-files.js';
import { openRunLogFile } from '../../run-log/run-log-chain.js';
import type { Redactor } from '../../run/redact.js';
import { probeIdOf, RUN_LOG_VERSION, type ProbeRecord } from '../../run-log/run-log.js';
import { AXIS_DEFENCES } from '../../defences/compose.js';
import { screenOf } from '../../defences/index.js';
import {
  applyTamper,
  ledgerProbeFields,
  openProbeLedger,
  type ProbeLedgerSettings,
  type TamperEdit,
} from './probe-seams.js';

/** Inputs of the setup phase. */
export interface SetupPhaseInput {
  runId: string;
  runDir: string;
  systems: readonly string[];
  modes: readonly SeedMode[];
  scenarios: readonly Scenario[];
  k: number;
  embedder: Embedder;
  /** Opens a backend by id (the registry's lazy loader). */
  loadBackend: (id: string, settings: BackendSettings) => Promise<MemoryBackend>;
  /** The LLM role for natural-mode ingestion. */
  extraction: ExtractionModel;
  /** The clock used for seeding offsets. */
  now?: () => Date;
  /** Where the probe lines go: a failed probe always, every other probe only with `verbose`. */
  log?: (line: string) => void;
  /** `--verbose`: one line per probe (`setup <system>/<mode>/<scenario>: ok exposed=…`); off, only failures. */
  verbose?: boolean;
  /** Redacts secrets from every probe record before it is written. */
  redact?: Redactor;
  /** Stops before the next probe (Ctrl+C, the breaker); a probe not written is simply run again on resume. */
  signal?: AbortSignal;
  /** `--tamper unrevoke`: the at-rest edit applied after seeding, before the reads. Absent: none. */
  tamper?: TamperEdit | null;
  /** Seed through the revocation ledger client and record its verdicts (a defence of the run consults it). */
  ledgerKey?: Uint8Array | null;
}

/** What a probe puts between seeding and reading (probe-seams.ts). */
interface ProbeSeams {
  tamper: TamperEdit | null;
  ledger: Omit<ProbeLedgerSettings, 'workDir'> | null;
  workDir: string;
}

/**
 * Table 9's verdict on a probe: the texts the stale-retrieval guard (the registered `guard` defence, or `guard-v2`
 * measured the same way, with `settings` or the defaults) withholds from the default read at `now`.
 */
export function tableNineWithheld(
  defaultRead: readonly MemoryRecord[],
  now: Date,
  settings?: unknown,
  defence: typeof AXIS_DEFENCES.guard | 'guard-v2' = AXIS_DEFENCES.guard,
): string[] {
  return screenOf(defence, settings)({ records: defaultRead, now }).withheld.map((w) => w.text);
}

function writesFor(scenario: Scenario, mode: SeedMode, now: Date): MemoryWrites {
  if (mode === 'natural') return { mode, episodes: episodesFor(scenario, now) };
  return { mode, revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors], relation: 'POLICY' };
}

async function probe(
  backend: MemoryBackend,
  scenario: Scenario,
  mode: SeedMode,
  k: number,
  now: Date,
  seams: ProbeSeams,
): Promise<ProbeRecord> {
  const base = {
    version: RUN_LOG_VERSION,
    type: 'memory-probe',
    system: backend.id,
    mode,
    scenario: scenario.id,
  } as const;
  const support = backend.description.modes[mode];
  if (!support.supported) return { ...base, status: 'not-applicable', reason: support.reason };
  const namespace = scenario.id;
  await backend.reset(namespace);
  const ledger = seams.ledger ? openProbeLedger(backend, namespace, { ...seams.ledger, workDir: seams.workDir }) : null;
  const report = await (ledger?.writer ?? backend).insert({ namespace, now, writes: writesFor(scenario, mode, now) });
  await ledger?.afterInsert(scenario, mode, now);
  const tampered = seams.tamper ? await applyTamper(backend, seams.tamper, namespace) : null;
  if (tampered && 'notApplicable' in tampered) {
    await backend.reset(namespace);
    return { ...base, status: 'not-applicable', reason: tampered.notApplicable };
  }
  const defaultResult = await backend.search({ namespace, query: scenario.query, limit: k });
  const filter = backend.description.storeFilter;
  const filteredResult = filter ? await backend.search({ namespace, query: scenario.query, limit: k, filter }) : null;
  const rule = backend.description.exposure;
  // Labels are taken before the namespace is wiped: the oracle (Zep) reads the store's own revocation state.
  const labelled = async (records: MemoryRecord[]): Promise<boolean[]> => {
    if (rule.rule !== 'oracle') return labelRecords(records, rule, scenario);
    if (!backend.revocationOracle)
      throw new Error(`${backend.id} labels exposure by oracle but has no revocationOracle`);
    return backend.revocationOracle(namespace, records);
  };
  // A record the tamper revived is still the revoked policy, though its status fields are gone.
  const revived = tampered?.revokedBefore ?? new Set<string>();
  const label = async (records: MemoryRecord[]) =>
    (await labelled(records)).map((revoked, index) => revoked || revived.has(records[index]!.id));
  const defaultLabels = await label(defaultResult.records);
  const guardNow = new Date();
  // The ledger judges the reads before the namespace is wiped.
  const reads = { default: defaultResult.records, filtered: filteredResult?.records ?? null };
  const ledgerFields = ledger ? ledgerProbeFields(ledger, scenario, reads, now, guardNow) : null;
  const filteredLabels = filteredResult ? await label(filteredResult.records) : defaultLabels;
  await backend.reset(namespace);
  return {
    ...base,
    status: 'ok',
    extractor: report.extractor,
    stored: report.stored,
    defaultRead: defaultResult.records,
    filteredRead: filteredResult?.records ?? null,
    defaultLabels,
    filteredLabels,
    exposure: { rule: rule.rule, ...exposureOf(defaultLabels) },
    guard: { now: guardNow.toISOString(), withheldTexts: tableNineWithheld(defaultResult.records, guardNow) },
    ...(tampered ? { tamper: tampered.applied } : {}),
    ...(ledgerFields ? { ledger: ledgerFields } : {}),
    warnings: [...report.warnings, ...defaultResult.warnings, ...(filteredResult?.warnings ?? [])],
  };
}

/**
 * Runs (or, on resume, reuses) every probe. Retrieval is decision-model-independent, so each probe runs once
 * per run and every model and trial reuses it; a resumed run reads `setup.jsonl` instead of re-seeding.
 */
export async function runSetupPhase(input: SetupPhaseInput): Promise<Map<string, ProbeRecord>> {
  const path = join(input.runDir, 'setup.jsonl');
  const probes = new Map<string, ProbeRecord>();
  for (const row of readJsonLines<ProbeRecord>(path).rows) {
    if (row.status !== 'error') probes.set(probeIdOf(row.system, row.mode, row.scenario), row);
  }
  const setupLog = openRunLogFile(input.runDir, 'setup.jsonl', input.redact);
  const now = input.now ?? (() => new Date());
  for (const system of input.systems) {
    const missing = input.modes.flatMap((mode) =>
      input.scenarios.filter((s) => !probes.has(probeIdOf(system, mode, s.id))).map((s) => [mode, s] as const),
    );
    if (missing.length === 0 || input.signal?.aborted) continue;
    const workDir = join(input.runDir, 'work', system);
    const backend = await input.loadBackend(system, {
      embedder: input.embedder,
      extraction: input.extraction,
      runId: input.runId,
      workDir,
    });
    const seams: ProbeSeams = {
      tamper: input.tamper ?? null,
      ledger: input.ledgerKey ? { key: input.ledgerKey } : null,
      workDir,
    };
    await backend.open();
    try {
      for (const [mode, scenario] of missing) {
        if (input.signal?.aborted) break;
        let record: ProbeRecord;
        try {
          // Seed → read → wipe alone on the engine when rankings span namespaces (Neo4j's index-wide BM25).
          const work = () => probe(backend, scenario, mode, input.k, now(), seams);
          record = await (backend.exclusive ? backend.exclusive(work) : work());
        } catch (error) {
          record = {
            version: RUN_LOG_VERSION,
            type: 'memory-probe',
            system,
            mode,
            scenario: scenario.id,
            status: 'error',
            reason: (error as Error).message,
          };
        }
        setupLog.append(record);
        probes.set(probeIdOf(system, mode, scenario.id), record);
        if (record.status === 'error' || (input.verbose && record.status !== 'not-applicable'))
          input.log?.(
            `setup ${probeIdOf(system, mode, scenario.id)}: ${record.status}${record.exposure ? ` exposed=${record.exposure.exposed}` : ''}${record.reason ? ` (${record.reason})` : ''}`,
          );
        else if (
          input.verbose &&
          record.status === 'not-applicable' &&
          scenario === missing.find(([m]) => m === mode)?.[1]
        )
          input.log?.(`setup ${system}/${mode}: n/a (${record.reason})`);
      }
    } finally {
      await backend.close();
    }
  }
  return probes;
}
