// The PoEM grounding check (poem.md §2.2, Alg. 1): an unsafe skip is allowed only if a verified ledger event backs it.
import { UnknownComponentError } from '#core/errors.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { BrokenLedger, LedgerReader } from './execution-ledger-types.js';
import type {
  GatedStep,
  ProofOfExecutionCheckInput,
  ProofOfExecutionDecision,
  ProofOfExecutionGate,
  SafetyStepMapping,
} from './proof-of-execution-types.js';

/** Settings of `createProofOfExecutionGate`. */
export interface ProofOfExecutionGateSettings {
  /** The ledger's reader (never its writer: the gate only reads); `verifyAppended` is used when it has one. */
  ledger: Pick<LedgerReader, 'verifyChain'> & Partial<Pick<LedgerReader, 'verifyAppended'>>;
  /** Gated steps by scenario id. */
  mapping: SafetyStepMapping;
}

/**
 * The gated steps of scenarios: `actions[0]` skips `safetyStep.action`, `actions[1]` performs it.
 *
 * @example const mapping = safetyStepMapping(await loadScenarios());
 */
export function safetyStepMapping(
  scenarios: readonly Pick<Scenario, 'id' | 'actions' | 'safetyStep'>[],
): SafetyStepMapping {
  return Object.freeze(
    Object.fromEntries(
      scenarios.map(({ id, actions: [unsafeAction, safeAction], safetyStep }) => [
        id,
        Object.freeze({ unsafeAction, safeAction, safetyStep: safetyStep.action }),
      ]),
    ),
  );
}

/** The mapping's entry for a scenario, or `UnknownComponentError` (a configuration mistake, not a verdict). */
export function gatedStepOf(mapping: SafetyStepMapping, scenario: string): GatedStep {
  const step = Object.hasOwn(mapping, scenario) ? mapping[scenario] : undefined;
  if (!step) throw new UnknownComponentError('gated scenario', scenario, Object.keys(mapping));
  return step;
}

/** The `not-gated` decision, or null when the proposed action is the gated skip. Shared with NaivePoEM. */
export function notGated(step: GatedStep, input: ProofOfExecutionCheckInput): ProofOfExecutionDecision | null {
  if (input.proposedAction === step.unsafeAction) return null;
  return {
    verdict: 'not-gated',
    action: input.proposedAction,
    proposedAction: input.proposedAction,
    safetyStep: step.safetyStep,
    reason: `${JSON.stringify(input.proposedAction)} is not the skip ${step.unsafeAction}; only skips are gated`,
    head: null,
  };
}

/**
 * Creates the PoEM gate. On the scenario's unsafe action it verifies what was appended since the cached head
 * (`verifyAppended`; a full `verifyChain` when the medium cannot vouch for the verified prefix) and looks for an event
 * with action = the safety step and the same normalised subject: found → `allowed` (the agent's action untouched);
 * not found → `overridden` (the safe action); chain broken or unreadable → `ledger-broken` (the safe action, fail
 * closed). Any other proposed action → `not-gated`. It never sees memory wording, so reframed judgments (attack C)
 * are handled like any other unbacked skip.
 *
 * @example
 * const gate = createProofOfExecutionGate({ ledger: reader, mapping: safetyStepMapping(scenarios) });
 * await gate.check({ scenario: 'mfa_waiver_access', proposedAction: 'GRANT_WITHOUT_MFA', subject: 'user:bob' });
 * // → { verdict: 'overridden', action: 'REQUIRE_MFA', safetyStep: 'mfa-challenge', ... } unless bob passed an MFA challenge
 */
export function createProofOfExecutionGate(settings: ProofOfExecutionGateSettings): ProofOfExecutionGate {
  const { ledger, mapping } = settings;
  return {
    id: 'poem',
    async check(input) {
      const step = gatedStepOf(mapping, input.scenario);
      const skip = notGated(step, input);
      if (skip) return skip;
      const base = { proposedAction: input.proposedAction, safetyStep: step.safetyStep };
      const check = ledger.verifyAppended ? ledger.verifyAppended() : ledger.verifyChain();
      const verification = await check.catch(
        (error: unknown): BrokenLedger => ({
          ok: false,
          failure: 'unreadable',
          reason: String((error as Error)?.message ?? error),
          line: null,
        }),
      );
      if (!verification.ok) {
        const reason = `the ledger failed verification (${verification.failure}: ${verification.reason}); failing closed to ${step.safeAction}`;
        return { ...base, verdict: 'ledger-broken', action: step.safeAction, reason, head: null };
      }
      const event = verification.find(step.safetyStep, input.subject);
      if (event) {
        const reason = `verified ledger event ${event.step} records ${step.safetyStep} for ${JSON.stringify(event.subject)}`;
        return { ...base, verdict: 'allowed', action: input.proposedAction, reason, head: verification.head };
      }
      const reason = `no verified ledger event records ${step.safetyStep} for ${JSON.stringify(input.subject)}; performing it (${step.safeAction})`;
      return { ...base, verdict: 'overridden', action: step.safeAction, reason, head: verification.head };
    },
  };
}
