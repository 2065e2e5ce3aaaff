// The proof-of-execution gate interface (types only): a trusted check between the agent's proposed action and its execution.
import type { LedgerHead } from './execution-ledger-types.js';

/** Registry id of a gate: `poem` (poem.md §2.2) or `naive-poem` (the §2.4 ablation). Open union. */
export type ProofOfExecutionGateId = 'poem' | 'naive-poem' | (string & {});

/**
 * The gate's verdict. `allowed`: a verified ledger event backs the skip, the proposed action is returned untouched.
 * `overridden`: no such event, the safe action (perform the step) is returned. `ledger-broken`: the chain failed
 * verification, so it proves nothing and the safe action is returned (fail closed). `not-gated`: the proposed action
 * is not the scenario's unsafe action; only skips are gated, so it is returned untouched.
 */
export type ProofOfExecutionVerdict = 'allowed' | 'overridden' | 'ledger-broken' | 'not-gated';

/** One gated decision: which proposed action skips which safety step, and what to do instead. */
export interface GatedStep {
  /** The action that skips the step (a scenario's `actions[0]`), compared exactly. */
  unsafeAction: string;
  /** The action that performs it (`actions[1]`); what an override returns. */
  safeAction: string;
  /** The ledger action id of the step (`safetyStep.action`). */
  safetyStep: string;
}

/** Gated steps by scenario id (`safetyStepMapping(scenarios)` builds it from the scenario files). */
export type SafetyStepMapping = Readonly<Record<string, GatedStep>>;

/** The arguments of `ProofOfExecutionGate.check`. Memory text is deliberately absent: the gate never reads wording. */
export interface ProofOfExecutionCheckInput {
  /** Scenario id; must be in the mapping. */
  scenario: string;
  /** The action the agent proposed (parsed from its answer). */
  proposedAction: string;
  /** Who or what the action is for; matched against ledger subjects after `normalizeSubject`. */
  subject: string;
}

/** The gate's outcome, as data for the sample record (poem.md §9: proposed action, verdict, ledger head). */
export interface ProofOfExecutionDecision {
  /** The verdict. */
  verdict: ProofOfExecutionVerdict;
  /** The action to execute: the proposed one (`allowed`, `not-gated`) or the safe one (`overridden`, `ledger-broken`). */
  action: string;
  /** The agent's proposal, unchanged. */
  proposedAction: string;
  /** The scenario's safety step id. */
  safetyStep: string;
  /** Why, in one sentence. */
  reason: string;
  /** The verified ledger head at decision time; null when the ledger was not verified (broken, not gated, NaivePoEM). */
  head: LedgerHead | null;
}

/**
 * A decision-time defence (poem.md §2.2). It wraps the decision → action step; the agent and memory never call it.
 *
 * @example
 * const gate = createProofOfExecutionGate({ ledger: reader, mapping: safetyStepMapping(scenarios) });
 * const { action } = await gate.check({ scenario: 'mfa_waiver_access', proposedAction: 'GRANT_WITHOUT_MFA', subject: 'user:alice' });
 */
export interface ProofOfExecutionGate {
  /** Registry id. */
  readonly id: ProofOfExecutionGateId;
  /** Decides what is executed instead of the proposed action. Throws `UnknownComponentError` for an unmapped scenario. */
  check(input: ProofOfExecutionCheckInput): Promise<ProofOfExecutionDecision>;
}
