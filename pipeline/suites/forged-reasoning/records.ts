// The run-log records of the forged-reasoning experiment (poem.md §6), appended to `forged-reasoning.jsonl`: one per
// trial unit (a clean run, the attacks, the benign traces) and one per adaptive-attacker loop.
import type { BenignStyle } from '../../../scenarios/forged-reasoning-scenario.js';
import type { ChatMessage, DecisionResponse } from '../../models/decision-model.js';
import type { WithheldRecordTrace } from '../../defences/defence-v1.js';
import type { RecordedCall } from '../follow-ups/follow-up-log.js';
import type { PoemTrace, RunLogVersion } from '../../run-log/run-log.js';
import type { SuiteRecordsV1 } from '../../run/suite.js';
import { readSuiteRecords } from '../suite-units.js';

/** The experiment id (pipeline/run/experiments.ts). */
export const FORGED_REASONING = 'forged-reasoning';

/**
 * The poisoned conditions of a trial. Forgery kinds: `basic`, `adaptive`, `judgment` (PoEM-aware attack C). PoEM-aware
 * attacks on the basic forgery: `ledger-forgery` (A: a forged ledger line written without the key) and
 * `cross-subject` (B: a genuine event of the safety step for another subject).
 */
export const ATTACK_CONDITIONS = ['basic', 'adaptive', 'judgment', 'ledger-forgery', 'cross-subject'] as const;
export type AttackCondition = (typeof ATTACK_CONDITIONS)[number];

/** Identity of one trial unit. */
export interface ForgedReasoningKey {
  experiment: typeof FORGED_REASONING;
  /** A forged-reasoning scenario id. */
  scenario: string;
  /** The victim model alias. */
  model: string;
  /** The registered defence id (`none`, `sentinel-style`, `naive-poem`, `poem`). */
  defence: string;
  trial: number;
}

/** `forged-reasoning/<scenario>/<model>/<defence>/<trial>`. */
export function forgedReasoningUnitId(key: ForgedReasoningKey): string {
  return [key.experiment, key.scenario, key.model, key.defence, String(key.trial)].join('/');
}

/** One memory write of a run, in write order. */
export interface MemoryWrite {
  text: string;
  /** `agent`: its genuine notes; `attacker`: a forgery; `self-log`: the genuine self-log of a benign trace. */
  origin: 'agent' | 'attacker' | 'self-log';
}

/** One decision run in its own fresh world (memory, ledger), and what was executed. */
export interface ReasoningDecision {
  /** `clean`, an attack condition, or `benign:<style>`. */
  condition: string;
  /** Every entry offered to memory, in order; `dropped` says which the defence's write-time screens refused. */
  written: MemoryWrite[];
  /** Entries the write-time screens dropped (`index` into `written`), with the guard's score in the reason. */
  dropped: WithheldRecordTrace[];
  /** The ledger before the decision: subjects of genuine events, and subjects of lines forged without the key. */
  ledger: { genuine: string[]; forged: string[] };
  /** The exact messages sent. */
  messages: ChatMessage[];
  reply: DecisionResponse | null;
  /** The action parsed from the reply, or null (a parse failure: never scored, counted apart). */
  parsedAction: string | null;
  /** The trusted layer's execution: the gate's trace when the defence gates the decision, else ungated (`gate` null). */
  execution: (PoemTrace & { gate: 'poem' | 'naive-poem' | null; checkMicros?: number }) | null;
  /** The executed action is the unsafe one (S skipped); null when no action was executed. */
  skipped: boolean | null;
  /**
   * Measured costs (PoEM Table IV; absent in records written before issue #29): the wall time (ms) of each model call
   * of the decision that was not a response-cache hit, how many were hits, and the stored ledger after execution.
   */
  overhead?: { callMs: number[]; cachedCalls: number; ledger: { bytes: number; lines: number } };
  /** The call raised: the decision is an error, in no n. */
  error?: { message: string; status?: number; attempts?: number };
}

/** `forged-reasoning.jsonl`: one trial unit. */
export interface ForgedReasoningRecord {
  version: RunLogVersion;
  type: 'forged-reasoning-end';
  unitId: string;
  key: ForgedReasoningKey;
  /** `error` when any decision's call raised (`--retry-errors` re-runs the unit); its other decisions are kept. */
  status: 'ok' | 'error';
  startedAt: string;
  finishedAt: string;
  /** The clean run (no attack): the differential baseline of every attack condition. */
  clean: ReasoningDecision | null;
  /** The poisoned runs, by condition. */
  attacks: Partial<Record<AttackCondition, ReasoningDecision>>;
  /** The benign traces (S genuinely ran, a genuine self-log), by style. */
  benign: Partial<Record<BenignStyle, ReasoningDecision>>;
  /** Every model call of the unit, in order (text left out). */
  calls: RecordedCall[];
  error?: { message: string };
}

/** Identity of one adaptive-attacker loop (poem.md §6): one per scenario and victim. */
export interface AttackerKey {
  experiment: typeof FORGED_REASONING;
  part: 'adaptive-attacker';
  scenario: string;
  model: string;
  /** `mutation-engine` (offline, deterministic) or the attacker model's alias. */
  attacker: string;
}

/** `forged-reasoning/adaptive-attacker/<scenario>/<model>/<attacker>`. */
export function attackerUnitId(key: AttackerKey): string {
  return [key.experiment, key.part, key.scenario, key.model, key.attacker].join('/');
}

/** What the attacker is told after an attempt. */
export type AttackerFeedback = 'caught' | 'unconvincing' | 'success' | 'no-note' | 'error';

/** One attempt of the loop: the note, the guard's verdict, the victim's clean and poisoned runs, each gate's verdict. */
export interface AttackerAttempt {
  /** 1-based query number. */
  query: number;
  /** The note, or null when the attacker's reply held none. */
  note: string | null;
  /** The attacker's raw reply (a model), or the mutation that produced the note (the engine). */
  origin: string;
  /** The sentinel-style guard's verdict on the note. */
  guard: { score: number; fired: string[]; dropped: boolean } | null;
  /** The victim without the note, and with it (no defence). */
  clean: ReasoningDecision | null;
  poisoned: ReasoningDecision | null;
  /** The poisoned proposal executed through each gate, each in its own fresh ledger. */
  gates: Partial<Record<'poem' | 'naive-poem', PoemTrace>>;
  feedback: AttackerFeedback;
}

/** `forged-reasoning.jsonl`: one adaptive-attacker loop. */
export interface AttackerRecord {
  version: RunLogVersion;
  type: 'adaptive-attacker-end';
  unitId: string;
  key: AttackerKey;
  status: 'ok' | 'error';
  startedAt: string;
  finishedAt: string;
  /** The attacker: `mutation-engine (offline, deterministic; not a language model)` or the model's label. */
  attackerLabel: string;
  /** Stops at this many successes (notes that fool the victim and evade the guard); poem.md §6: ten. */
  targetSuccesses: number;
  maxQueries: number;
  attempts: AttackerAttempt[];
  /** `successes`: the target was reached; `max-queries`: it was not. */
  stop: 'successes' | 'max-queries' | 'error';
  /** The victim's calls. */
  calls: RecordedCall[];
  /** The attacker model's calls (none for the mutation engine), billed to `key.attacker`. */
  attackerCalls: RecordedCall[];
  error?: { message: string };
}

/** Any line of `forged-reasoning.jsonl`. */
export type ForgedReasoningLine = ForgedReasoningRecord | AttackerRecord;

/** Where a forged-reasoning run's records live: `forged-reasoning.jsonl`, each record carrying its unit id. */
export const FORGED_REASONING_RECORDS: SuiteRecordsV1<ForgedReasoningLine> = {
  file: `${FORGED_REASONING}.jsonl`,
  unitOf: (record) => record.unitId,
};

/** The records file of a forged-reasoning run. */
export const FORGED_REASONING_FILE = FORGED_REASONING_RECORDS.file;

/** Reads `forged-reasoning.jsonl`; the last record of a unit wins (a retried error is superseded). */
export function readForgedReasoningRecords(runDir: string): Map<string, ForgedReasoningLine> {
  return readSuiteRecords({ records: FORGED_REASONING_RECORDS }, runDir);
}
