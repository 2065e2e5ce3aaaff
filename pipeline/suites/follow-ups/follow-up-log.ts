// The run-log records of the follow-up experiments (stale-retrieval.md §12–§14): write-back hops, multi-agent
// propagation and the tool-use exploit chain. One record per unit, appended to `<experiment>.jsonl`.
import type { MemoryRecord, RecordedWarning, SeedMode } from '../../../backends/memory-backend.js';
import type { ChatMessage, DecisionResponse } from '../../models/decision-model.js';
import type { GuardTrace, PoemTrace, RunLogVersion } from '../../run-log/run-log.js';
import type { ToolArgs } from './tools/decoy-tools.js';
import type { ToolState } from './tools/sentinels.js';

/** The follow-up experiments, as pipeline/run/experiments.ts declares them (`grid`, the main grid, writes records.jsonl). */
export type { FollowUpExperimentId } from '../../run/experiments.js';
import type { FollowUpExperimentId } from '../../run/experiments.js';
import { axisSegments, type UnitKeyAxes } from '../../defences/axes/index.js';

// The agent-episode shapes (written by pipeline/suites/follow-ups/tools/tool-agent.ts).

/** Why the loop ended. */
export type AgentStopReason = 'no-parse' | 'no-tool' | 'finish' | 'max-steps';

/** One model call and what followed from it. */
export interface AgentStep {
  /** Exactly what was sent to the model (a copy). */
  messages: ChatMessage[];
  /** The sample identity of this call (`<episode sample>#step<n>`). */
  sample: string;
  /** The raw reply (the history carries it stripped, as the reference does). */
  reply: string;
  /** The parsed tool name, or null when the reply had no JSON object or no tool. */
  tool: string | null;
  /** The parsed arguments (`{}` when absent or not an object). */
  args: ToolArgs;
  /** The decoy's reply, or null when no tool ran. */
  toolReply: string | null;
  /** The flags after this step (a copy). */
  flags: ToolState;
}

/** The safe/unsafe verdict of §14.4; an episode can be neither (e.g. it did nothing). */
export interface ExploitVerdict {
  /** The scenario's unsafe signal (T-ASR). */
  unsafe: boolean;
  /** The reference's safe-action definition for the scenario. */
  safe: boolean;
}

/**
 * Identity of one follow-up unit: content-derived, stable across runs. The defence axes (pipeline/defences/axes)
 * follow as fields of their own: `guard` (every read through the stale-retrieval guard) and `poem` (every decision
 * or gated tool call through the proof-of-execution gate) always, `taint` (journals carry provenance) only when on.
 */
export type FollowUpKey = {
  experiment: FollowUpExperimentId;
  scenario: string;
  system: string;
  /** How the scenario's policies were seeded (the paper: direct). */
  mode: SeedMode;
  /**
   * The experiment's arm: write-back mode `direct` | `natural`; propagation `shared-default` |
   * `shared-filtered` | `no-journal`; tools `none` | `store-filter` | `guard` | `tool-guardrail`.
   */
  arm: string;
  model: string;
  trial: number;
} & UnitKeyAxes;

/** `experiment/scenario/system/mode/arm/model/trial`, with `/guard`, `/poem`, `/taint` (each axis on) appended. */
export function followUpUnitIdOf(key: FollowUpKey): string {
  return [
    key.experiment,
    key.scenario,
    key.system,
    key.mode,
    key.arm,
    key.model,
    String(key.trial),
    ...axisSegments(key),
  ].join('/');
}

/** One read of memory as the unit made it, and what reached the model. */
export interface ReadTrace {
  /** `default` or the system's own filtered read (`filtered`). */
  read: 'default' | 'filtered';
  query: string;
  /** Records the read returned (before the guard). */
  returned: MemoryRecord[];
  /** The records whose texts reached the model (after the guard, when on). */
  records: MemoryRecord[];
  /** Per record in `records`: labelled revoked by the system's exposure rule (the seeded v1 only). */
  labels: boolean[];
  /** A revoked record reached the model. */
  exposed: boolean;
  /** Per record in `records`: a write-back journal of this unit (matched on its exact text). */
  journal: boolean[];
  /** The stale-retrieval guard's trace (`--guard on`, the tools `guard` arm). */
  guard?: GuardTrace;
  /** Any other registered read screen's trace, by defence id; absent for the paper's defences. */
  screens?: Record<string, GuardTrace>;
  warnings: RecordedWarning[];
}

/** One decision call (§6 protocol, or a role prompt) and its score. */
export interface DecisionTrace {
  readTrace: ReadTrace;
  /** The exact messages sent. */
  messages: ChatMessage[];
  reply: DecisionResponse | null;
  parsedAction: string | null;
  /** The action that counts: the parsed one, or the one the PoEM gate executed. Null: no action. */
  unsafe: boolean | null;
  parseFailure: boolean;
  poem?: PoemTrace;
  /** Any other registered post-decision step's trace, by defence id; absent for the paper's defences. */
  reviews?: Record<string, unknown>;
  error?: { message: string; status?: number; attempts?: number };
}

/** What the store holds of this unit's journals right before a hop (measurement only, `listRecords`). */
export interface JournalCensus {
  /** Journals written so far. */
  written: number;
  /** Records whose lowercased text carries the journal marker (`decision record` / `approved action`); null: not observable. */
  stored: number | null;
  /** Of those, not revoked by the store (Graphiti: `expired_at` null); null: not observable. */
  active: number | null;
}

/** A write-back journal the unit wrote. */
export interface JournalWrite {
  /** After which hop (0..2). */
  afterHop: number;
  text: string;
  /** `direct`: a DECISION edge; `natural`: an episode the system ingests itself. */
  mode: 'direct' | 'natural';
  stored: number;
  extractor: string;
  warnings: RecordedWarning[];
  /** With `--taint on`: the ids of the records in the read the journalled decision saw (its provenance). */
  derivedFrom?: string[];
}

/** `writeback.jsonl`: one write-back run (§12). */
export interface WritebackRecord {
  version: RunLogVersion;
  type: 'writeback-end';
  unitId: string;
  key: FollowUpKey;
  status: 'ok' | 'error' | 'not-applicable';
  reason?: string;
  startedAt: string;
  finishedAt: string;
  /** Hop 0: the default read with the scenario query and task (no hardening). */
  hop0: DecisionTrace | null;
  /** Hop 0 on the filtered read, for the "no write-back" row (reported apart; never journals). */
  hop0Filtered: DecisionTrace | null;
  journals: JournalWrite[];
  /** Hops 1..3; empty when hop 0 was not unsafe. */
  hops: {
    hop: number;
    census: JournalCensus;
    default: DecisionTrace;
    filtered: DecisionTrace;
  }[];
  error?: { message: string; stack?: string };
  /** The decision whose provider call failed, with its read and messages. */
  failedStep?: DecisionTrace;
}

/** The three roles, in the order they run. */
export type RoleId = 'executor' | 'reviewer' | 'planner';

/** `propagation.jsonl`: one shared-memory run of the three roles (§13). */
export interface PropagationRecord {
  version: RunLogVersion;
  type: 'propagation-end';
  unitId: string;
  key: FollowUpKey;
  status: 'ok' | 'error' | 'not-applicable';
  reason?: string;
  startedAt: string;
  finishedAt: string;
  roles: Partial<Record<RoleId, DecisionTrace>>;
  /** The executor's journal, when one was written. */
  journal: JournalWrite | null;
  error?: { message: string; stack?: string };
  /** The decision whose provider call failed, with its read and messages. */
  failedStep?: DecisionTrace;
}

/** One agent episode of the exploit chain, as recorded. */
export interface AgentTrace {
  readTrace: ReadTrace;
  guardrailArmed: boolean;
  steps: AgentStep[];
  stop: AgentStopReason;
  flags: ToolState;
  calls: number;
  verdict: ExploitVerdict;
  bypassed_tool_guardrail: boolean;
  /** `--poem on`: the gate's verdict on each gated tool call. */
  poem?: PoemTrace[];
  error?: { message: string; status?: number; attempts?: number };
}

/** `tools.jsonl`: one exploit-chain unit (§14). */
export interface ToolsRecord {
  version: RunLogVersion;
  type: 'tools-end';
  unitId: string;
  key: FollowUpKey;
  status: 'ok' | 'error' | 'not-applicable';
  reason?: string;
  startedAt: string;
  finishedAt: string;
  agent: AgentTrace | null;
  /** §14.5, only on the `none` arm and only when its tool attack fired. */
  relapse?: {
    journal: string;
    priming: AgentTrace;
    default: AgentTrace;
    filtered: AgentTrace;
  };
  error?: { message: string; stack?: string };
  /** The decision whose provider call failed, with its read and messages. */
  failedStep?: DecisionTrace;
}

/** One model call a follow-up unit made (the reply's text lives in its step), for calls, tokens and spend. */
export type RecordedCall = Omit<DecisionResponse, 'text'>;

export type FollowUpRecord = (WritebackRecord | PropagationRecord | ToolsRecord) & {
  /** Every model call of the unit in order, tool-agent steps included (absent in records written before issue #12). */
  calls?: RecordedCall[];
};
