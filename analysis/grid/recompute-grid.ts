// Recomputes a grid run's probes (setup.jsonl) and unit records (records.jsonl) from their stored reads and replies.
import { join } from 'node:path';
import { normalizeSubject } from '../../guard/execution-ledger-encoding.js';
import { gatedStepOf, safetyStepMapping } from '../../guard/proof-of-execution-gate.js';
import {
  subjectOf,
  hasPriorStep,
  priorStepDesignOf,
  isArmId,
  gridDefences,
  gridUnitContext,
  messagesOf,
  probeReads,
  reviewDecision,
  reviewTraceFields,
  screenTracePath,
  sha256,
  parseReply,
  type ActionParserId,
  unitIdOf,
  type ProbeRecord,
  type UnitRecord,
  probeIdOf,
  shardKeyOf,
  shardOfKey,
  tableNineWithheld,
  jsonLinesOf,
  exposureOf,
  labelRecords,
} from '../../pipeline/index.js';
import { unsafeAction, type Scenario } from '../../scenarios/scenario.js';
import type { RunHead } from '../load-run.js';
import { type DifferenceLog, numberedJsonLines, type RecomputeDifference } from '../recompute-diff.js';
import { recordedClocks, screenTraceRequired } from './recompute-guard.js';
import { createBackingIndex, recomputePoemTrace, recomputePriorStep } from '../recompute-poem.js';
import type { ExposureRuleOf } from '../rescore-inputs.js';
import { summaryRecordOf, type SummaryRecord } from './summarize.js';

/** What a grid recomputation reads besides the run directory. */
export interface GridRecomputeInput {
  /** The run's manifest and probes; its records are streamed from records.jsonl, never held. */
  run: RunHead;
  /** The run's policy scenarios by id (verified against the manifest). */
  scenarios: ReadonlyMap<string, Scenario>;
  /** Each system's exposure rule. */
  rules: ReadonlyMap<string, ExposureRuleOf>;
  parser: ActionParserId;
  log: DifferenceLog;
  /** Sees every recomputed unit record, in file order (a unit's later line supersedes its earlier one). */
  onRecord?: (record: UnitRecord, probes: ReadonlyMap<string, ProbeRecord>) => void;
}

/**
 * The recomputed probes, and the recomputed records reduced to what summarising reads (last line of each id wins,
 * as `loadRun` reads them; a run of any size is recomputed without holding its records).
 */
export interface GridRecomputed {
  probes: Map<string, ProbeRecord>;
  records: Map<string, SummaryRecord>;
  /** Lines re-derived per file. */
  lines: Record<string, number>;
  /** Systems whose labels come from an oracle and were kept as stored. */
  oracleSystems: string[];
}

/** A probe's labels, exposure and Table 9 guard verdict, re-derived from its stored reads. */
function recomputeProbe(probe: ProbeRecord, scenario: Scenario, rule: ExposureRuleOf): ProbeRecord {
  if (probe.status !== 'ok') return probe;
  const label = (records: ProbeRecord['defaultRead']) =>
    rule.rule === 'oracle' ? null : labelRecords(records ?? [], rule, scenario);
  const defaultLabels = label(probe.defaultRead) ?? probe.defaultLabels ?? [];
  const filteredLabels = probe.filteredRead ? (label(probe.filteredRead) ?? probe.filteredLabels ?? []) : defaultLabels;
  const guard = probe.guard && {
    now: probe.guard.now,
    withheldTexts: tableNineWithheld(probe.defaultRead ?? [], new Date(probe.guard.now)),
  };
  return {
    ...probe,
    defaultLabels,
    filteredLabels,
    exposure: { rule: rule.rule, ...exposureOf(defaultLabels) },
    ...(guard ? { guard } : {}),
  };
}

/**
 * Re-derives every stored line: probe labels (status and lexical rules; oracle labels are kept), exposure and the
 * Table 9 guard verdict; per unit its defences through the registry as the run applied them: the context (read,
 * screens with their recorded clocks, labels), the prompt hash, the parsed action under `parser`, the post-decision
 * steps (output filter, PoEM trace) and the scores. Differences go to `log`.
 */
export async function recomputeGrid(input: GridRecomputeInput): Promise<GridRecomputed> {
  const { run, scenarios, rules, log } = input;
  const probes = new Map<string, ProbeRecord>();
  const shardProbes = new Map<string, ProbeRecord>();
  const probeLines = numberedJsonLines<ProbeRecord>(join(run.runDir, 'setup.jsonl'));
  const oracleSystems = new Set<string>();
  for (const { line, row } of probeLines) {
    const id = probeIdOf(row.system, row.mode, row.scenario);
    const scenario = scenarios.get(row.scenario);
    const rule = rules.get(row.system);
    if (!scenario || !rule)
      throw new Error(
        `${join(run.runDir, 'setup.jsonl')}:${line ?? '?'}: probe ${id} names a ${scenario ? 'system' : 'scenario'} the manifest's spec does not list`,
      );
    if (rule.rule === 'oracle' && row.status === 'ok') oracleSystems.add(row.system);
    const recomputed = recomputeProbe(row, scenario, rule);
    const where = { file: 'setup.jsonl', line, record: id };
    for (const field of ['defaultLabels', 'filteredLabels', 'exposure', 'guard'] as const)
      log.compare(where, field, row[field], recomputed[field]);
    if (row.status === 'ok' && !row.guard)
      log.add({
        ...where,
        field: 'guard',
        stored: undefined,
        recomputed: '(the guard clock and verdict every ok probe records, for Table 9)',
      });
    probes.set(id, recomputed);
    if (row.shard !== undefined) shardProbes.set(`${id}#${row.shard}`, recomputed);
  }
  const recordsPath = join(run.runDir, 'records.jsonl');
  // A first pass over the lines that can back a PoEM skip (a cheap text test; only those lines are parsed).
  const backing = createBackingIndex(
    [...jsonLinesOf<UnitRecord>(recordsPath, (text) => STEP_RECORDED.test(text))]
      .filter(({ row }) => row.status === 'ok' && row.poem?.stepRecorded)
      .map(({ row }) => ({
        subject: normalizeSubject(subjectOf(row.key)),
        owner: row.unitId,
        startedAt: row.startedAt,
      })),
  );
  const mapping = safetyStepMapping([...scenarios.values()]);
  // Which units ran their safety step before deciding follows from the unit identity and the run's recorded design.
  const design = priorStepDesignOf(run.manifest);
  const reuse = createReuseCheck(log, run.manifest.spec.arms);
  const records = new Map<string, SummaryRecord>();
  let unitLines = 0;
  for (const { line, row } of jsonLinesOf<UnitRecord>(recordsPath)) {
    unitLines += 1;
    const where = { file: 'records.jsonl', line, record: row.unitId };
    reuse.see(row);
    const recomputed = await recomputeUnit(row, {
      ...input,
      probes,
      shardProbes,
      where,
      mapping,
      reuse,
      backs: (r) => backing.backs(subjectOf(r.key), r.unitId, r.finishedAt),
      priorStep: (r) => design !== null && hasPriorStep(r.key),
    });
    log.compare(where, 'unitId', row.unitId, unitIdOf(row.key));
    // The exact messages are in the run: rebuilt from the stored context alone, they must hash to the stored hash
    // (checked where the probes' recomputation agrees with it; a stored hash it contradicts is named once, below).
    const scenario = scenarios.get(row.key.scenario);
    if (scenario && isArmId(row.key.arm) && row.promptSha256 === recomputed.promptSha256)
      log.compare(
        { ...where, record: `${row.unitId} (messagesOf its stored context)` },
        'promptSha256',
        row.promptSha256,
        sha256(JSON.stringify(messagesOf(row, scenario))),
      );
    for (const field of [
      'context',
      'promptSha256',
      'parsedAction',
      'scores',
      'outputFilter',
      'poem',
      'priorSafetyStep',
      'reviews',
    ] as const)
      log.compare(where, field, row[field], recomputed[field]);
    records.set(row.unitId, summaryRecordOf(recomputed));
    input.onRecord?.(recomputed, probes);
  }
  reuse.settle();
  return {
    probes,
    records,
    lines: { 'setup.jsonl': probeLines.length, 'records.jsonl': unitLines },
    oracleSystems: [...oracleSystems],
  };
}

type UnitInput = GridRecomputeInput & {
  probes: ReadonlyMap<string, ProbeRecord>;
  /** A merged run's probes by `<probe id>#<shard>` (pnpm merge keeps every shard's). */
  shardProbes: ReadonlyMap<string, ProbeRecord>;
  where: { file: string; line: number | null; record: string };
  mapping: ReturnType<typeof safetyStepMapping>;
  reuse: ReuseCheck;
  backs: (record: UnitRecord) => boolean;
  /** The unit's safety step ran before its decision (pipeline/suites/grid/poem-prior-step.ts, the run's design). */
  priorStep: (record: UnitRecord) => boolean;
};

/** One unit as `runUnit` would have recorded it, given its stored reply (and, for PoEM, the recorded verdict class). */
async function recomputeUnit(record: UnitRecord, input: UnitInput): Promise<UnitRecord> {
  const { key } = record;
  const { log, where } = input;
  const scenario = input.scenarios.get(key.scenario);
  // A merged run keeps every shard's probes: a unit's context came from the setup of the shard that ran it.
  const shards = input.run.manifest.merged?.[0]?.shard.count;
  const id = probeIdOf(key.system, key.mode, key.scenario);
  const own = shards === undefined ? undefined : input.shardProbes.get(`${id}#${shardOfKey(shardKeyOf(key), shards)}`);
  const probe = own ?? input.probes.get(id);
  if (!scenario || !isArmId(key.arm) || probe?.status !== 'ok') {
    const missing = !scenario
      ? `(scenario ${key.scenario} is not one of the run's)`
      : !isArmId(key.arm)
        ? `(arm ${key.arm} is not a grid arm)`
        : `(an ok probe ${probeIdOf(key.system, key.mode, key.scenario)} in setup.jsonl)`;
    log.add({ ...where, field: 'key', stored: key, recomputed: missing });
    return record;
  }
  // The unit's defences through the registry, as the run applied them; each screen with the clock its trace recorded.
  const defences = gridDefences(key);
  const clocks = recordedClocks(record.context, defences);
  if ('missing' in clocks) {
    log.add({
      ...where,
      field: `context.${screenTracePath(clocks.missing)}`,
      stored: undefined,
      recomputed: screenTraceRequired(clocks.missing),
    });
    return record;
  }
  const { context, messages } = gridUnitContext(scenario, probe, defences, clocks.clockOf);
  const { outputFilter: _outputFilter, poem: _poem, reviews: _reviews, priorSafetyStep: _prior, ...rest } = record;
  const step = gatedStepOf(input.mapping, key.scenario);
  const priorStep = input.priorStep(record);
  const priorSafetyStep = recomputePriorStep(record.priorSafetyStep, priorStep, step);
  const base = {
    ...rest,
    context,
    promptSha256: sha256(JSON.stringify(messages)),
    ...(priorSafetyStep ? { priorSafetyStep } : {}),
  };
  if (record.status !== 'ok') return { ...base, parsedAction: null, scores: { unsafe: null, parseFailure: false } };
  if (!record.reply) {
    log.add({ ...where, field: 'reply', stored: null, recomputed: '(the reply of an ok unit)' });
    return record;
  }
  const parsedAction = parseReply(record.reply.text, scenario.actions, input.parser);
  // The unit whose reply this one reused, as its reusing defence's trace recorded it (`outputFilter`, or under its id
  // in `reviews` for another defence that reuses a reply, such as zep-oracle-output-filter).
  const reusedUnit = reusedUnitOf(record);
  if (defences.reuseReplyOf !== null && isArmId(defences.reuseReplyOf) && reusedUnit !== null)
    input.reuse.expect(where, reusedUnit, unitIdOf({ ...key, arm: defences.reuseReplyOf }), record.reply.text);
  // The ledger is not stored: the gate's verdict is re-derived from the recorded one (analysis/recompute-poem.ts).
  const execute = async (proposedAction: string) => {
    if (record.poem)
      return recomputePoemTrace(record.poem, { proposedAction, step, backed: input.backs(record), priorStep });
    log.add({
      ...where,
      field: 'poem',
      stored: undefined,
      recomputed: '(a PoEM trace: the gate checks every parsed decision of a --poem on unit)',
    });
    return null;
  };
  const decision = await reviewDecision(defences.reviews, {
    proposedAction: parsedAction,
    unsafeAction: unsafeAction(scenario),
    reply: { text: record.reply.text, reusedFrom: reusedUnit },
    reads: probeReads(probe),
    execute,
  });
  return {
    ...base,
    parsedAction,
    // A skip after the unit's own prior safety step is legitimate, not unsafe (as runUnit scores it).
    scores: { unsafe: priorStep && decision.unsafe ? false : decision.unsafe, parseFailure: parsedAction === null },
    ...reviewTraceFields(decision.traces),
  };
}

/** A line that may record a PoEM safety step (the key as `JSON.stringify` writes it, or hand-spaced). */
const STEP_RECORDED = /"stepRecorded"\s*:\s*true/;

/** The output filter's reuse check: a reusing unit's reply must equal the stored reply of the unit it names. */
interface ReuseCheck {
  /** Notes `record`'s reply (last line of a unit wins), for units a reusing arm may name. */
  see(record: UnitRecord): void;
  /** Checks, once every line is seen, that `reusedUnit` is `reusedId` and its stored reply is `replyText`. */
  expect(
    where: Pick<RecomputeDifference, 'file' | 'line' | 'record'>,
    reusedUnit: string,
    reusedId: string,
    replyText: string,
  ): void;
  /** Adds the differences found, each where the check was made in file order. */
  settle(): void;
}

/**
 * The reused unit may be stored after the reusing one (a resumed run re-runs it), so the replies are compared when
 * every line has been seen; replies are kept as sha256, and only for units of an arm some arm reuses.
 */
function createReuseCheck(log: DifferenceLog, arms: readonly string[]): ReuseCheck {
  const reusedArms = new Set(
    arms.filter(isArmId).map((arm) => gridDefences({ arm, guard: false, poem: false }).reuseReplyOf),
  );
  const replies = new Map<string, string | null>();
  const pending: { at: number; difference: RecomputeDifference; reusedId: string; reply: string }[] = [];
  return {
    see(record) {
      if (reusedArms.has(record.key.arm)) replies.set(record.unitId, record.reply ? sha256(record.reply.text) : null);
    },
    expect(where, reusedUnit, reusedId, replyText) {
      const difference = {
        ...where,
        field: 'outputFilter.reusedUnit',
        stored: reusedUnit,
        recomputed: `(${reusedId}, whose stored reply equals this unit's reply)`,
      };
      if (reusedUnit !== reusedId) log.add(difference);
      else pending.push({ at: log.differences.length, difference, reusedId, reply: sha256(replyText) });
    },
    settle() {
      const failed = pending.filter((check) => replies.get(check.reusedId) !== check.reply);
      for (const { at, difference } of failed.reverse()) log.differences.splice(at, 0, difference);
    },
  };
}

/** The unit a record's reply was reused from, from the trace of the defence that reused it; null when none did. */
function reusedUnitOf(record: UnitRecord): string | null {
  if (record.outputFilter) return record.outputFilter.reusedUnit;
  for (const trace of Object.values(record.reviews ?? {})) {
    const reused = (trace as { reusedUnit?: unknown } | null)?.reusedUnit;
    if (typeof reused === 'string') return reused;
  }
  return null;
}
