// What a run did, read back from its records: calls and spend per model, provenance, and the counts its ending is judged on.
import type { PriceLookup } from '../models/prices.js';
import {
  provenanceOf,
  totalCostUsd,
  usageTotals,
  type ModelProvenance,
  type ModelUsage,
  type RecordedReply,
} from './usage-totals.js';
import type { DecisionResponse } from '../models/decision-model.js';
import type { FollowUpRecord } from '../suites/follow-ups/follow-up-log.js';
import { probeIdOf, type ProbeRecord, type UnitRecord } from '../run-log/run-log.js';
import type { UnitOutcome } from './run-control.js';

/** What accounting reads of a grid unit record (a `UnitRecord` is one; the end of a run keeps only this). */
export interface AccountedUnit {
  /** The unit's key; accounting reads its model. */
  key: Pick<UnitRecord['key'], 'model'>;
  /** `ok` or `error`. */
  status: UnitRecord['status'];
  /** The unit's id; the end of a run names its failed units (kept for errors only). */
  unitId?: string;
  /** Accounting reads `parseFailure`. */
  scores: Pick<UnitRecord['scores'], 'parseFailure'>;
  /** The reply (its text is not read). */
  reply: UnitRecord['reply'];
  /** The output filter's trace; accounting reads whether it reused another unit's reply. */
  outputFilter?: { reusedUnit: string | null };
}

/** The replies of a grid unit (the output filter's copy of another unit's reply is marked reused: attempts 0, not cached). */
function gridReplies(record: AccountedUnit): RecordedReply[] {
  if (!record.reply) return [];
  return [{ model: record.key.model, reply: record.reply, reused: record.outputFilter?.reusedUnit != null }];
}

/** The calls of a follow-up unit, as replies (text left out). */
function followUpReplies(record: FollowUpRecord): RecordedReply[] {
  return (record.calls ?? []).map((call) => ({
    model: record.key.model,
    reply: { ...call, text: '' } as DecisionResponse,
  }));
}

/** Decisions of a follow-up record that could be parsed or not (tool episodes have none). */
function followUpDecisions(record: FollowUpRecord): { completed: number; unparseable: number } {
  const traces =
    record.type === 'writeback-end'
      ? [record.hop0, record.hop0Filtered, ...record.hops.flatMap((hop) => [hop.default, hop.filtered])]
      : record.type === 'propagation-end'
        ? Object.values(record.roles)
        : [];
  const replied = traces.filter((trace) => trace?.reply);
  return { completed: replied.length, unparseable: replied.filter((trace) => trace!.parseFailure).length };
}

/** What the control plane hears about a finished unit. */
export function gridOutcome(record: UnitRecord): UnitOutcome {
  return {
    status: record.status,
    replies: gridReplies(record),
    parseFailures: record.scores.parseFailure ? 1 : 0,
    ...(record.error ? { error: record.error.message } : {}),
  };
}

/** What the control plane hears about a finished follow-up unit. */
export function followUpOutcome(record: FollowUpRecord): UnitOutcome {
  return {
    status: record.status,
    replies: followUpReplies(record),
    parseFailures: followUpDecisions(record).unparseable,
    ...(record.error ? { error: record.error.message } : {}),
  };
}

/** Everything the end of a run reports, over every recorded unit (earlier invocations of a resumed run included). */
export interface RunAccount {
  units: number;
  done: number;
  errored: number;
  /** The failed units' ids (and `setup <probe id>` of failed setup probes), as the end of the run names them. */
  failedUnits: string[];
  /** Decisions that got a reply, and those of them that named no action. */
  completed: number;
  unparseable: number;
  cacheHits: number;
  cacheMisses: number;
  usage: ModelUsage[];
  provenance: ModelProvenance[];
}

/** Accounts a grid run: its probes (a failed probe is an error) and unit records. */
export function accountGrid(
  total: number,
  records: Iterable<AccountedUnit>,
  probes: Iterable<ProbeRecord>,
  priceOf: PriceLookup,
): RunAccount {
  const all = [...records];
  const replies = all.flatMap(gridReplies);
  const completed = all.filter((r) => r.status === 'ok');
  const failedProbes = [...probes].filter((p) => p.status === 'error');
  return {
    units: total,
    done: all.length,
    errored: all.filter((r) => r.status === 'error').length + failedProbes.length,
    failedUnits: [
      ...failedProbes.map((p) => `setup ${probeIdOf(p.system, p.mode, p.scenario)}`),
      ...all.filter((r) => r.status === 'error').map((r) => r.unitId ?? '(unit id not kept)'),
    ],
    completed: completed.length,
    unparseable: completed.filter((r) => r.scores.parseFailure).length,
    cacheHits: replies.filter((r) => !r.reused && r.reply.cached).length,
    cacheMisses: replies.filter((r) => !r.reused && !r.reply.cached && r.reply.attempts > 0).length,
    usage: usageTotals(replies, priceOf),
    provenance: provenanceOf(replies),
  };
}

/** Accounts a follow-up run. */
export function accountFollowUp(total: number, records: Iterable<FollowUpRecord>, priceOf: PriceLookup): RunAccount {
  const all = [...records];
  const decisions = all.filter((r) => r.status === 'ok').map(followUpDecisions);
  return accountOfUnits(total, all, all.flatMap(followUpReplies), decisions, priceOf);
}

/**
 * A run's account from its units (last record of each), every reply they recorded, and each unit's decisions
 * completed and unparseable: what follow-up and forged-reasoning runs share.
 */
export function accountOfUnits(
  total: number,
  units: readonly { status: string; unitId: string }[],
  replies: readonly RecordedReply[],
  decisions: readonly { completed: number; unparseable: number }[],
  priceOf: PriceLookup,
): RunAccount {
  return {
    units: total,
    done: units.length,
    errored: units.filter((r) => r.status === 'error').length,
    failedUnits: units.filter((r) => r.status === 'error').map((r) => r.unitId),
    completed: decisions.reduce((sum, d) => sum + d.completed, 0),
    unparseable: decisions.reduce((sum, d) => sum + d.unparseable, 0),
    cacheHits: replies.filter((r) => r.reply.cached).length,
    cacheMisses: replies.filter((r) => !r.reply.cached && r.reply.attempts > 0).length,
    usage: usageTotals(replies, priceOf),
    provenance: provenanceOf(replies),
  };
}

const count = (n: number) => n.toLocaleString('en-US');
const dollars = (usd: number | null) => (usd === null ? '$ unknown' : `$${usd.toFixed(4)}`);

/** What the final lines say beside the run's account. */
export interface AccountContext {
  /** `--budget-usd`: the cap and what this invocation spent (calls of unknown cost at their upper bound). */
  budget: { limitUsd: number; spentUsd: number; callsWithUnknownCost: number } | null;
  /** What this invocation's own recorded units sent and spent, per model. */
  invocation: readonly ModelUsage[];
  /** The run had earlier invocations: the per-model lines are its total, with this invocation's share beside. */
  resumed: boolean;
}

/**
 * The final lines about spend: per model calls sent, cache hits, tokens and dollars over the whole run (on a resume,
 * labelled `run total` with this invocation's calls and dollars beside it); the budget of this invocation; provenance
 * warnings. When the budget counted other money than this invocation's recorded replies cost, a line says so.
 */
export function formatAccount(account: RunAccount, context: AccountContext): string[] {
  const { budget, invocation, resumed } = context;
  const lines: string[] = [];
  for (const usage of account.usage) {
    if (usage.sent === 0 && usage.cacheHits === 0) {
      lines.push(
        `spend ${usage.model}: nothing sent, $0 (${count(usage.offline)} offline repl${usage.offline === 1 ? 'y' : 'ies'}: simulated)`,
      );
      continue;
    }
    const cost =
      usage.costUsd === null
        ? `$ unknown (${usage.unknownCost} call(s) with no proxy cost and no price)`
        : `$${usage.costUsd.toFixed(4)}`;
    const own = invocation.find((entry) => entry.model === usage.model);
    const share = resumed
      ? ` (run total); ${count(own?.sent ?? 0)} call${own?.sent === 1 ? '' : 's'} sent by this invocation, ${dollars(own ? own.costUsd : 0)}`
      : '';
    lines.push(
      `spend ${usage.model}: ${count(usage.sent)} call(s) sent (${count(usage.attempts)} attempts), ${count(usage.cacheHits)} cache hit(s), ${count(usage.inputTokens)} input / ${count(usage.outputTokens)} output tokens, ${cost}${share}`,
    );
  }
  if (budget) {
    const unknown = budget.callsWithUnknownCost;
    lines.push(
      `budget: $${budget.spentUsd.toFixed(4)} spent of $${budget.limitUsd} (this invocation${unknown > 0 ? `; ${count(unknown)} call(s) of unknown cost counted at their upper bound` : ''})`,
    );
    const recorded = totalCostUsd(invocation);
    if (unknown === 0 && recorded !== null && Math.abs(recorded - budget.spentUsd) > 1e-9)
      lines.push(
        `warning: the budget counted $${budget.spentUsd.toFixed(6)} but the units this invocation recorded cost $${recorded.toFixed(6)}: the difference was billed for units that were not recorded (cut by a stop, or failed after their reply)`,
      );
  }
  for (const entry of account.provenance) for (const warning of entry.warnings) lines.push(`warning: ${warning}`);
  return lines;
}
