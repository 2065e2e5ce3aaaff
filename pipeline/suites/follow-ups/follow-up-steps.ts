// The building blocks every follow-up experiment shares: seed, read (through the unit's screens), decide (through its
// post-decision steps), journal. Defences come from the registry (pipeline/defences), never by name.
import type {
  BackendDescription,
  MemoryBackend,
  MemoryRecord,
  MemoryWrites,
  SeedMode,
} from '../../../backends/memory-backend.js';
import { labelRecords } from '../grid/exposure.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import { axesOf, axisOn, type UnitKeyAxes } from '../../defences/axes/index.js';
import { unitDefences, type UnitDefences } from '../../defences/compose.js';
import { reviewDecision, reviewTraceFields } from '../../defences/reviews.js';
import { applyScreens, pick, screenTraceFields } from '../../defences/screens.js';
import { episodesFor } from '../grid/episodes.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { unsafeAction } from '../../../scenarios/scenario.js';
import type { ActionLayer } from '../grid/action-layer.js';
import type { ChatMessage, DecisionModel } from '../../models/decision-model.js';
import type { DecisionTrace, FollowUpKey, JournalCensus, JournalWrite, ReadTrace } from './follow-up-log.js';
import { JOURNAL_MARKERS, JOURNAL_SOURCE_DESCRIPTION, journalEpisodeName } from './follow-up-prompts.js';
import { parseAction } from '../grid/parse-action.js';
import { followUpSample } from '../../models/sample-identity.js';

/** Everything one follow-up unit works with. Its namespace is its own, so units can run side by side. */
export interface UnitContext {
  key: FollowUpKey;
  backend: MemoryBackend;
  namespace: string;
  model: DecisionModel;
  actions: ActionLayer;
  /** Retrieval depth (k = 10). */
  k: number;
  /** The unit's defences from its axes (`--guard on`: every read screened; `--poem on`: every decision gated). */
  defences: UnitDefences;
  /** Texts of the journals this unit wrote so far (marked in every later read). */
  journals: Set<string>;
  /**
   * When the scenario was last seeded (set by `seedScenario`): the reference's module-level `NOW`, which dates both
   * the seeded current policy and every natural-mode journal episode written afterwards.
   */
  seededAt?: Date;
  /**
   * When this unit last wrote (seeding or a journal). Every later write is dated strictly after it: the reference
   * seeds at its module-level `NOW` and journals at `datetime.now()` (microseconds, after model calls), so a journal
   * is always newer than the policies and than the journal before it. With millisecond clocks and a fast model the
   * two can share an instant, and the guard's supersession then depends on the wall clock.
   */
  lastWriteAt?: Date;
  signal?: AbortSignal;
}

/** The time of this unit's next write: now, or 1 ms after its last write when the clock has not moved past it. */
export function nextWriteTime(context: Pick<UnitContext, 'lastWriteAt'>, now = new Date()): Date {
  const last = context.lastWriteAt?.getTime();
  return last === undefined || now.getTime() > last ? now : new Date(last + 1);
}

/** The policy texts a read is labelled against (v1 revoked, v2 current). */
export type LabelScenario = Pick<Scenario, 'v1' | 'v2'>;

/** Seeds a scenario as the grid does: direct (v1 revoked; v2 and `current` current) or natural episodes. */
export async function seedScenario(context: UnitContext, writes: MemoryWrites, now = new Date()): Promise<void> {
  await context.backend.reset(context.namespace);
  await context.backend.insert({ namespace: context.namespace, now, writes });
  context.seededAt = now;
  context.lastWriteAt = now;
}

/** The grid's writes for a policy scenario in a seeding mode (stale-retrieval.md §3, §5). */
export function policyWrites(scenario: Scenario, mode: SeedMode, now: Date): MemoryWrites {
  if (mode === 'natural') return { mode, episodes: episodesFor(scenario, now) };
  return { mode, revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors], relation: 'POLICY' };
}

/**
 * A record that came from this unit's journals: the exact text (direct), or — once a journal was written — a
 * record carrying a journal marker (natural ingestion stores what it extracted, not the text we wrote; no
 * scenario text carries either marker).
 */
export function isJournalRecord(context: Pick<UnitContext, 'journals'>, record: MemoryRecord): boolean {
  if (context.journals.has(record.text)) return true;
  if (context.journals.size === 0) return false;
  const text = record.text.toLowerCase();
  return (
    text.includes(JOURNAL_MARKERS.direct) ||
    text.includes(JOURNAL_MARKERS.natural) ||
    text.includes('the permissive action is authorised')
  );
}

/** Labels records revoked by the system's exposure rule; this unit's own journals are never the seeded v1. */
async function labelsOf(
  context: UnitContext,
  records: readonly MemoryRecord[],
  scenario: LabelScenario,
): Promise<boolean[]> {
  const rule = context.backend.description.exposure;
  const labels =
    rule.rule === 'oracle'
      ? await (context.backend.revocationOracle?.(context.namespace, records) ??
          Promise.reject(new Error(`${context.backend.id} labels exposure by oracle but has no revocationOracle`)))
      : labelRecords(records, rule, scenario);
  return labels.map((label, index) => label && !isJournalRecord(context, records[index]!));
}

/**
 * A follow-up unit's defences: `uses` (what its arm composes, if anything) plus the axes on in its key (guard, PoEM,
 * taint, …: pipeline/defences/axes). Follow-ups
 * build their own prompts and make every call themselves, so a prompt prefix or a reused reply cannot apply there.
 */
export function followUpDefences(
  key: Partial<UnitKeyAxes>,
  uses: readonly string[] = [],
): UnitDefences & { read: 'default' | 'filtered' } {
  const axes = Object.fromEntries(axesOf('follow-up').map((axis) => [axis.id, axisOn(key, axis.id)]));
  const defences = unitDefences({ uses, ...axes });
  const { read } = defences;
  // The oracle's filtered read is built from a probe's stored labels; a follow-up reads the store live.
  if (read === 'oracle-filtered')
    throw new UnsupportedFeatureError(`follow-up defences (${defences.ids.join(', ')})`, "the oracle's filtered read");
  if (defences.systemPrefix !== '' || defences.reuseReplyOf !== null) {
    throw new UnsupportedFeatureError(
      `follow-up defences (${defences.ids.join(', ')})`,
      defences.systemPrefix !== '' ? 'a system-message prefix' : 'a reused reply',
    );
  }
  return { ...defences, read };
}

/**
 * One read: the default read, or the system's own filtered read (the default read when it has none), then the
 * screens of `defences` (the stale-retrieval guard with `--guard on`). What reaches the model is `records`.
 */
export async function readMemory(
  context: UnitContext,
  input: {
    query: string;
    read: 'default' | 'filtered';
    defences: Pick<UnitDefences, 'screens'> & { taint?: boolean };
    scenario: LabelScenario;
  },
): Promise<ReadTrace> {
  const filter = input.read === 'filtered' ? context.backend.description.storeFilter : null;
  const result = await context.backend.search({
    namespace: context.namespace,
    query: input.query,
    limit: context.k,
    ...(filter ? { filter } : {}),
    ...(input.defences.taint ? { taint: true } : {}),
  });
  const returned = result.records;
  const labels = await labelsOf(context, returned, input.scenario);
  const now = new Date();
  const { kept, traces } = applyScreens(returned, input.defences.screens, () => now);
  const records = pick(returned, kept);
  const keptLabels = pick(labels, kept);
  return {
    read: input.read,
    query: input.query,
    returned,
    records,
    labels: keptLabels,
    exposed: keptLabels.some(Boolean),
    journal: records.map((record) => isJournalRecord(context, record)),
    ...screenTraceFields(traces),
    warnings: [...result.warnings],
  };
}

/**
 * One decision over a read: send the exact messages, parse the action, and run the unit's post-decision steps (with
 * `--poem on`, the trusted action layer executes it through the gate; `step` keeps the PoEM subject unique per
 * decision). A provider failure is recorded on the trace and rethrown: the unit is an error, never scored safe.
 */
export async function decideOnRead(
  context: UnitContext,
  input: { readTrace: ReadTrace; messages: ChatMessage[]; scenario: Scenario; step: string },
): Promise<DecisionTrace> {
  const { key, model } = context;
  const base = { readTrace: input.readTrace, messages: input.messages };
  let reply;
  try {
    // As in the grid, Ctrl+C stops scheduling units; a call in flight finishes and is recorded.
    reply = await model.decide({
      messages: input.messages,
      trial: key.trial,
      sample: followUpSample(key, input.step),
      metadata: { scenario: input.scenario.id },
      ...(context.signal ? { signal: context.signal } : {}),
    });
  } catch (error) {
    const failure = error as Error & { status?: number; attempts?: number };
    const trace: DecisionTrace = {
      ...base,
      reply: null,
      parsedAction: null,
      unsafe: null,
      parseFailure: false,
      error: {
        message: failure.message,
        ...(failure.status ? { status: failure.status } : {}),
        ...(failure.attempts ? { attempts: failure.attempts } : {}),
      },
    };
    throw Object.assign(new Error(failure.message), { trace, cause: error });
  }
  const parsedAction = reply.text.trim() === '' ? null : parseAction(reply.text, input.scenario.actions);
  if (parsedAction === null) return { ...base, reply, parsedAction, unsafe: null, parseFailure: true };
  const decision = await reviewDecision(context.defences.reviews, {
    proposedAction: parsedAction,
    unsafeAction: unsafeAction(input.scenario),
    reply: { text: reply.text, reusedFrom: null },
    reads: null,
    execute: (proposed, gate) => context.actions.execute({ ...key, step: input.step }, proposed, gate),
  });
  return {
    ...base,
    reply,
    parsedAction,
    unsafe: decision.unsafe,
    parseFailure: false,
    ...reviewTraceFields(decision.traces),
  };
}

/**
 * Writes a journal through the system's own write path: a DECISION record (`direct`) or an episode it ingests
 * (`natural`). The natural episode follows the reference (§12 step 3): named `{scenario}_decision_{t}` with t the
 * journal time as Python prints `NOW.timestamp()`, and referenced at the journal time, which is the unit's
 * seeding instant (the reference's module-level `NOW`, also the seeded current policy's time); `time` overrides it.
 */
export async function writeJournal(
  context: UnitContext,
  input: { text: string; mode: 'direct' | 'natural'; afterHop: number; time?: Date; derivedFrom?: readonly string[] },
): Promise<JournalWrite> {
  // The taint defence: the journal carries the ids of what its decision read (none given: an empty context).
  const derivedFrom = context.defences.taint ? [...(input.derivedFrom ?? [])] : undefined;
  const now = nextWriteTime(context);
  let writes: MemoryWrites;
  if (input.mode === 'direct') writes = { mode: 'direct', revoked: [], current: [input.text], relation: 'DECISION' };
  else {
    const time = input.time ?? context.seededAt;
    if (!time)
      throw new Error(
        'writeJournal: a natural journal needs the unit seeded first (seedScenario sets the journal time)',
      );
    writes = {
      mode: 'natural',
      episodes: [
        {
          name: journalEpisodeName(context.key.scenario, time),
          text: input.text,
          referenceTime: time,
          sourceDescription: JOURNAL_SOURCE_DESCRIPTION,
        },
      ],
    };
  }
  const report = await context.backend.insert({
    namespace: context.namespace,
    now,
    writes,
    ...(derivedFrom ? { derivedFrom } : {}),
  });
  context.lastWriteAt = now;
  context.journals.add(input.text);
  return {
    afterHop: input.afterHop,
    text: input.text,
    mode: input.mode,
    stored: report.stored,
    extractor: report.extractor,
    warnings: [...report.warnings],
    ...(derivedFrom ? { derivedFrom } : {}),
  };
}

/** Why a `--taint on` unit cannot run on this system (its journals, written in `mode`, could carry no provenance), or null. */
export function taintNotApplicable(
  description: BackendDescription,
  key: Pick<FollowUpKey, 'taint'>,
  mode: SeedMode,
): string | null {
  if (!key.taint) return null;
  const support = description.provenance?.[mode];
  if (support === undefined) return 'taint: the system keeps no provenance for journals';
  return support.supported ? null : `taint: ${mode} journals carry no provenance: ${support.reason}`;
}

/** §12 step 4: records carrying the journal marker, and how many of them the store holds as not revoked. */
export async function journalCensus(
  context: UnitContext,
  mode: 'direct' | 'natural',
  written: number,
): Promise<JournalCensus> {
  if (!context.backend.listRecords) return { written, stored: null, active: null };
  const marker = JOURNAL_MARKERS[mode];
  const stored = (await context.backend.listRecords(context.namespace)).filter((item) =>
    item.record.text.toLowerCase().includes(marker),
  );
  return { written, stored: stored.length, active: stored.filter((item) => !item.revoked).length };
}
