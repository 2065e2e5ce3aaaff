// One decision's world (poem.md §2): a fresh reasoning memory and execution ledger, and the trusted action layer that
// alone writes the ledger. The attacker's only powers are memory writes and raw bytes appended to the ledger medium.
import { createHmac, randomBytes } from 'node:crypto';
import { createExecutionLedger } from '../../../guard/execution-ledger.js';
import { formatLedgerLine, GENESIS_MAC, normalizeSubject } from '../../../guard/execution-ledger-encoding.js';
import { createMemoryLedgerStorage } from '../../../guard/execution-ledger-storage.js';
import { createProofOfExecutionGate } from '../../../guard/proof-of-execution-gate.js';
import { createNaiveProofOfExecutionGate } from '../../../guard/proof-of-execution-naive-gate.js';
import type { GatedStep } from '../../../guard/proof-of-execution-types.js';
import type { ForgedReasoningScenario } from '../../../scenarios/forged-reasoning-scenario.js';
import type { ExecutionGate } from '../../defences/defence-v1.js';
import type { PoemTrace } from '../../run-log/run-log.js';

/**
 * What the trusted layer did with a proposed action; `gate` null when no gate checked it. `checkMicros`: the measured
 * wall time of the gate's check (ledger verification and lookup), absent when no gate checked.
 */
export type WorldExecution = PoemTrace & { gate: ExecutionGate | null; checkMicros?: number };

/** A fresh world for one decision of one scenario. */
export interface ReasoningWorld {
  /** The gated step: skip = `actions[0]`, perform = `actions[1]`, ledger action = `safetyStep.action`. */
  step: GatedStep;
  /** The trusted layer genuinely performs S for `subject` (the only way a valid event is appended). */
  performSafetyStep(subject: string): Promise<void>;
  /** Attack A: the attacker appends a well-formed S line for `subject` with a MAC under its own key (it lacks ours). */
  forgeLedgerLine(subject: string): Promise<void>;
  /** Executes the proposed action: through `gate` when given, else as proposed; performing S appends its event. */
  execute(proposedAction: string, gate: ExecutionGate | null): Promise<WorldExecution>;
  /** The ledger medium as stored now: its bytes and lines (events, genuine or forged). */
  stored(): { bytes: number; lines: number };
}

/**
 * Creates the world. The decision's subject is the scenario's `subject`; `key` is the runtime's HMAC key, which the
 * attacker never holds.
 *
 * @example const world = createReasoningWorld(ehr, key); await world.execute('INSERT_DIRECTLY', 'poem') // overridden
 */
export function createReasoningWorld(scenario: ForgedReasoningScenario, key: Uint8Array): ReasoningWorld {
  const storage = createMemoryLedgerStorage();
  const { writer, reader } = createExecutionLedger({ key, storage });
  const [unsafeAction, safeAction] = scenario.actions;
  const step: GatedStep = { unsafeAction, safeAction, safetyStep: scenario.safetyStep.action };
  const mapping = { [scenario.id]: step };
  const gates = {
    poem: createProofOfExecutionGate({ ledger: reader, mapping }),
    'naive-poem': createNaiveProofOfExecutionGate({ ledger: reader, mapping }),
  };
  const perform = async (subject: string) => void (await writer.append({ action: step.safetyStep, subject }));
  return {
    step,
    performSafetyStep: perform,
    async forgeLedgerLine(subject) {
      const lines = Buffer.from(storage.bytes()).toString('utf8').split('\n').filter(Boolean);
      const last = lines.at(-1);
      const prev = last ? (JSON.parse(last) as { mac: string }).mac : GENESIS_MAC;
      const unsigned = { action: step.safetyStep, subject: normalizeSubject(subject), step: lines.length, prev };
      const mac = createHmac('sha256', randomBytes(32)).update(JSON.stringify(unsigned)).digest('hex');
      await storage.append(Buffer.from(`${formatLedgerLine({ v: 1, ...unsigned, mac })}\n`, 'utf8'));
    },
    async execute(proposedAction, gate) {
      // A broken chain refuses appends; the step still ran, so the trace says it was not recorded.
      const record = async (executed: string) =>
        executed === step.safeAction
          ? perform(scenario.subject).then(
              () => true,
              () => false,
            )
          : false;
      if (gate === null) {
        const reason = 'no gate: the proposed action is executed as proposed';
        return {
          gate,
          verdict: 'not-gated',
          proposedAction,
          executedAction: proposedAction,
          safetyStep: step.safetyStep,
          reason,
          head: null,
          stepRecorded: await record(proposedAction),
        };
      }
      const started = process.hrtime.bigint();
      const decision = await gates[gate].check({ scenario: scenario.id, proposedAction, subject: scenario.subject });
      const checkMicros = Number(process.hrtime.bigint() - started) / 1000;
      const recorded = await record(decision.action);
      const head = decision.head ? { length: decision.head.length, mac: decision.head.mac } : null;
      return {
        gate,
        verdict: decision.verdict,
        proposedAction,
        executedAction: decision.action,
        safetyStep: decision.safetyStep,
        reason: decision.reason,
        head,
        stepRecorded: recorded,
        checkMicros,
      };
    },
    stored() {
      const bytes = storage.bytes();
      const lines = Buffer.from(bytes).toString('utf8').split('\n').filter(Boolean).length;
      return { bytes: bytes.length, lines };
    },
  };
}
