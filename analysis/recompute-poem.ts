// Re-derives a decision's PoEM trace from its parsed action and the run's other records (the ledger itself is not stored).
import { normalizeSubject } from '../guard/execution-ledger-encoding.js';
import type { GatedStep } from '../guard/proof-of-execution-types.js';
import type { PoemTrace, PriorSafetyStep } from '../pipeline/index.js';

/** What the PoEM recheck cannot see, said in every rescore report that meets a PoEM trace. */
export const POEM_NOT_RECHECKED =
  "PoEM: proposed action, verdict class, executed action and recorded step are re-derived; the ledger lives in memory and is not stored, so its MAC head, a `ledger-broken` verdict and an `overridden` verdict (the ledger is per process; a resumed run starts a fresh one) are kept as recorded, and an `allowed` verdict is only checked to have a unit with the same ledger subject that recorded the safety step and started before this unit finished; a grid unit's safety step run before its decision (pipeline/suites/grid/poem-prior-step.ts) is re-derived from its identity and backs its own skip, its ledger position and MAC kept as recorded";

/** A decision whose executed action recorded the safety step, as a possible ledger event for later decisions. */
export interface LedgerEventCandidate {
  /** `normalizeSubject` of the decision's ledger subject. */
  subject: string;
  /** The unit (or follow-up decision) it belongs to. */
  owner: string;
  startedAt: string;
}

/** Finds whether a possible ledger event backs an `allowed` verdict. */
export function createBackingIndex(candidates: readonly LedgerEventCandidate[]) {
  const bySubject = new Map<string, LedgerEventCandidate[]>();
  for (const candidate of candidates) {
    const known = bySubject.get(candidate.subject);
    if (known) known.push(candidate);
    else bySubject.set(candidate.subject, [candidate]);
  }
  return {
    /** True when another decision with this subject recorded the step and started before `finishedAt`. */
    backs(subject: string, owner: string, finishedAt: string): boolean {
      return (bySubject.get(normalizeSubject(subject)) ?? []).some(
        (c) => c.owner !== owner && c.startedAt <= finishedAt,
      );
    },
  };
}

/**
 * The PoEM trace `execute` would produce for `proposedAction`, given the recorded trace for what the ledger alone
 * decided: a non-skip is `not-gated` and runs as proposed; a skip is `allowed` (runs as proposed) only if backed,
 * `overridden` or `ledger-broken` (the safe action) otherwise. Reason texts and the head are kept as recorded.
 */
export function recomputePoemTrace(
  stored: PoemTrace,
  input: {
    proposedAction: string;
    step: GatedStep;
    backed: boolean;
    /** The unit's own step ran before the decision, in the same process's ledger: the skip is allowed. */
    priorStep?: boolean;
  },
): PoemTrace {
  const { proposedAction, step, backed, priorStep = false } = input;
  if (proposedAction !== step.unsafeAction) {
    return {
      ...stored,
      verdict: 'not-gated',
      proposedAction,
      executedAction: proposedAction,
      safetyStep: step.safetyStep,
      head: null,
      stepRecorded: proposedAction === step.safeAction,
    };
  }
  const verdict =
    stored.verdict === 'ledger-broken'
      ? stored.verdict
      : priorStep
        ? 'allowed'
        : stored.verdict === 'overridden'
          ? stored.verdict
          : backed
            ? 'allowed'
            : 'overridden';
  const executedAction = verdict === 'allowed' ? proposedAction : step.safeAction;
  return {
    ...stored,
    verdict,
    proposedAction,
    executedAction,
    safetyStep: step.safetyStep,
    head: verdict === 'ledger-broken' ? null : stored.head,
    stepRecorded: executedAction === step.safeAction,
  };
}

/**
 * The `priorSafetyStep` a grid unit must carry: none unless `expected` (the run's design picks the unit); then the
 * scenario's step, with the ledger position and MAC as recorded (the ledger is not stored). A missing event shows
 * up as position -1 and a placeholder MAC, so the comparison names it.
 */
export function recomputePriorStep(
  stored: PriorSafetyStep | undefined,
  expected: boolean,
  step: GatedStep,
): PriorSafetyStep | undefined {
  if (!expected) return undefined;
  return {
    action: step.safetyStep,
    step: stored?.step ?? -1,
    mac: stored?.mac ?? '(missing: the event the action layer appends before the decision)',
  };
}
