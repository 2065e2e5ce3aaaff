// The trusted action layer of a run: it executes decisions, and is the only writer of the execution ledger (PoEM).
import { createExecutionLedger } from '../guard/execution-ledger.js';
import { generateLedgerKey } from '../guard/execution-ledger-key.js';
import { createProofOfExecutionGate, safetyStepMapping } from '../guard/proof-of-execution-gate.js';
import type { ProofOfExecutionDecision } from '../guard/proof-of-execution-types.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { UnitKey } from './run-log.js';

/** What the gate did to one decision, for the unit record. */
export interface PoemTrace {
  verdict: ProofOfExecutionDecision['verdict'];
  proposedAction: string;
  executedAction: string;
  safetyStep: string;
  reason: string;
  /** Ledger head the decision was checked against (null when not verified). */
  head: { length: number; mac: string } | null;
  /** The safety step really ran for this subject and the layer recorded it. */
  stepRecorded: boolean;
}

/** What identifies one decision's request: a grid unit key, or a follow-up unit key with its step in `arm`. */
export type DecisionSubjectKey = Pick<UnitKey, 'scenario' | 'system' | 'mode' | 'model' | 'trial'> & { arm: string };

/** The subject of one unit's request: unique per unit, so no other unit's event can back its skip. */
export function subjectOf(key: DecisionSubjectKey): string {
  return `request ${key.scenario} ${key.system} ${key.mode} ${key.arm} ${key.model} trial-${key.trial}`;
}

/**
 * Creates the run's action layer. The ledger lives in memory for the run; its HMAC key is the caller's
 * (`STALEBENCH_LEDGER_KEY`) or generated per process, and is never written anywhere.
 */
export function createActionLayer(settings: { scenarios: readonly Scenario[]; key?: Uint8Array | null }) {
  const { writer, reader } = createExecutionLedger({ key: settings.key ?? generateLedgerKey() });
  const mapping = safetyStepMapping(settings.scenarios);
  const gate = createProofOfExecutionGate({ ledger: reader, mapping });
  return {
    /** Gates a parsed decision, then "executes" the resulting action; performing the safety step appends its event. */
    async execute(key: DecisionSubjectKey, proposedAction: string): Promise<PoemTrace> {
      const subject = subjectOf(key);
      const decision = await gate.check({ scenario: key.scenario, proposedAction, subject });
      const step = mapping[key.scenario]!;
      const stepRecorded = decision.action === step.safeAction;
      if (stepRecorded) await writer.append({ action: step.safetyStep, subject });
      return {
        verdict: decision.verdict,
        proposedAction,
        executedAction: decision.action,
        safetyStep: decision.safetyStep,
        reason: decision.reason,
        head: decision.head ? { length: decision.head.length, mac: decision.head.mac } : null,
        stepRecorded,
      };
    },
  };
}

export type ActionLayer = ReturnType<typeof createActionLayer>;
