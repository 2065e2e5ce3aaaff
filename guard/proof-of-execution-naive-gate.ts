// NaivePoEM (poem.md §2.4): the ablation that checks only whether the safety step ran at all, with no chain check and no subject.
import type { LedgerReader } from './execution-ledger-types.js';
import { gatedStepOf, notGated } from './proof-of-execution-gate.js';
import type { ProofOfExecutionGate, SafetyStepMapping } from './proof-of-execution-types.js';

/** Settings of `createNaiveProofOfExecutionGate`. */
export interface NaiveProofOfExecutionGateSettings {
  /** The ledger's reader; only its unverified read is used. */
  ledger: Pick<LedgerReader, 'readUnverified'>;
  /** Gated steps by scenario id. */
  mapping: SafetyStepMapping;
}

/**
 * Creates NaivePoEM, **an ablation, not a defence**: a skip is allowed if any line of the ledger names the safety
 * step, whoever it was for and whether or not its MAC verifies. It therefore falls to ledger forgery (attack A) and
 * cross-subject replay (attack B), which is what it exists to show. It never returns `ledger-broken`.
 *
 * @example const naive = createNaiveProofOfExecutionGate({ ledger: reader, mapping: safetyStepMapping(scenarios) });
 */
export function createNaiveProofOfExecutionGate(settings: NaiveProofOfExecutionGateSettings): ProofOfExecutionGate {
  const { ledger, mapping } = settings;
  return {
    id: 'naive-poem',
    async check(input) {
      const step = gatedStepOf(mapping, input.scenario);
      const skip = notGated(step, input);
      if (skip) return skip;
      const base = { proposedAction: input.proposedAction, safetyStep: step.safetyStep, head: null };
      const entries = await ledger.readUnverified().catch(() => []);
      if (entries.some((entry) => entry.action === step.safetyStep)) {
        return {
          ...base,
          verdict: 'allowed',
          action: input.proposedAction,
          reason: `some ledger line names ${step.safetyStep} (unverified, any subject)`,
        };
      }
      return {
        ...base,
        verdict: 'overridden',
        action: step.safeAction,
        reason: `no ledger line names ${step.safetyStep}; performing it (${step.safeAction})`,
      };
    },
  };
}
