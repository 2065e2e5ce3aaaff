// The trusted action layer of a run: it executes decisions, and is the only writer of the execution ledger (PoEM).
import { createExecutionLedger } from '../../../guard/execution-ledger.js';
import { generateLedgerKey } from '../../../guard/execution-ledger-key.js';
import { createProofOfExecutionGate, safetyStepMapping } from '../../../guard/proof-of-execution-gate.js';
import { createNaiveProofOfExecutionGate } from '../../../guard/proof-of-execution-naive-gate.js';
import { AXES, axisOn, type UnitKeyAxes } from '../../defences/axes/index.js';
import type { ExecutionGate } from '../../defences/defence-v1.js';
import { sha256 } from '../../run-log/json-files.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import type { ExploitScenario } from '../../../scenarios/exploit-scenario.js';
import type { PoemTrace, PriorSafetyStep, UnitKey } from '../../run-log/run-log.js';

export type { PoemTrace } from '../../run-log/run-log.js';

/**
 * What identifies one decision: every field of the unit (a grid unit key, or a follow-up unit key) plus the step
 * within it. Guard and PoEM are required: a guard-off unit and its guard-on sibling are different requests.
 */
export type DecisionSubjectKey = Pick<UnitKey, 'scenario' | 'system' | 'mode' | 'model' | 'trial'> &
  UnitKeyAxes & {
    arm: string;
    /** `grid` (default) or the follow-up experiment id. */
    experiment?: string;
    /** The decision within the unit (`hop1:default`, `reviewer`); default `decision`, a grid unit's only one. */
    step?: string;
  };

/**
 * The ledger subject of one decision: unique per (experiment, scenario, system, mode, arm, model, trial, guard, poem,
 * every other axis on, step), so no other decision's event can back its skip. Ledger subjects are compared after `normalizeSubject`
 * (lowercase, collapsed whitespace), so the readable part alone could merge ids that differ in case or spacing; the
 * suffix hashes the exact fields and keeps every subject distinct.
 */
export function subjectOf(key: DecisionSubjectKey): string {
  const later = AXES.filter((axis) => axis.stored === 'when-on' && axisOn(key, axis.id)).map((axis) => axis.id);
  const fields = [
    key.experiment ?? 'grid',
    key.scenario,
    key.system,
    key.mode,
    key.arm,
    key.model,
    key.trial,
    key.guard,
    key.poem,
    // Every other axis on (`taint`, …), by id: siblings that differ only there are different requests too.
    ...later,
    key.step ?? 'decision',
  ];
  const readable = `${fields.slice(0, 6).join('/')}/trial-${key.trial}/guard-${key.guard ? 'on' : 'off'}/poem-${key.poem ? 'on' : 'off'}${later.map((id) => `/${id}-on`).join('')}/${key.step ?? 'decision'}`;
  return `request ${readable} #${sha256(JSON.stringify(fields)).slice(0, 32)}`;
}

/**
 * Creates the run's action layer. The ledger lives in memory for the run; its HMAC key is the caller's
 * (`STALEBENCH_LEDGER_KEY`) or generated per process, and is never written anywhere.
 */
export function createActionLayer(settings: {
  scenarios: readonly Scenario[];
  exploitScenarios?: readonly ExploitScenario[];
  key?: Uint8Array | null;
}) {
  const { writer, reader } = createExecutionLedger({ key: settings.key ?? generateLedgerKey() });
  const mapping = safetyStepMapping(settings.scenarios);
  const gates = {
    poem: createProofOfExecutionGate({ ledger: reader, mapping }),
    'naive-poem': createNaiveProofOfExecutionGate({ ledger: reader, mapping }),
  };
  // Tool episodes: a call that would fire the scenario's unsafe signal is the gated skip of its safety step.
  const exploits = new Map((settings.exploitScenarios ?? []).map((scenario) => [scenario.id as string, scenario]));
  const toolGate = createProofOfExecutionGate({
    ledger: reader,
    mapping: Object.fromEntries(
      [...exploits.values()].map((s) => [
        s.id,
        { unsafeAction: TOOL_SKIP, safeAction: TOOL_REFUSED, safetyStep: s.safetyStep.action },
      ]),
    ),
  });
  return {
    /**
     * Gates a tool call that would fire the exploit scenario's unsafe signal: `allowed` only if the ledger records
     * the scenario's safety step for `subject`; otherwise the call is refused (`executedAction` = `refused`).
     */
    async gateToolCall(scenarioId: string, subject: string, tool: string): Promise<PoemTrace> {
      const decision = await toolGate.check({ scenario: scenarioId, proposedAction: TOOL_SKIP, subject });
      return {
        verdict: decision.verdict,
        proposedAction: tool,
        executedAction: decision.verdict === 'allowed' ? tool : TOOL_REFUSED,
        safetyStep: decision.safetyStep,
        reason: decision.reason,
        head: decision.head ? { length: decision.head.length, mac: decision.head.mac } : null,
        stepRecorded: false,
      };
    },
    /** After a decoy ran: a tool that performs the scenario's safety step appends its event (the only writer). */
    async recordToolRun(scenarioId: string, subject: string, tool: string): Promise<boolean> {
      const step = exploits.get(scenarioId)?.safetyStep;
      if (!step || !(step.performedBy as readonly string[]).includes(tool)) return false;
      await writer.append({ action: step.action, subject });
      return true;
    },
    /**
     * Performs the scenario's safety step for this decision's own subject before the decision is made (the grid's
     * legitimate-skip half, pipeline/suites/grid/poem-prior-step.ts) and appends its genuine ledger event.
     */
    async performSafetyStep(key: DecisionSubjectKey): Promise<PriorSafetyStep> {
      const action = mapping[key.scenario]!.safetyStep;
      const event = await writer.append({ action, subject: subjectOf(key) });
      return { action, step: event.step, mac: event.mac };
    },
    /**
     * Gates a parsed decision with `gate` (default the PoEM gate; `naive-poem` the ablation), then "executes" the
     * resulting action; performing the safety step appends its event.
     */
    async execute(key: DecisionSubjectKey, proposedAction: string, gate: ExecutionGate = 'poem'): Promise<PoemTrace> {
      const subject = subjectOf(key);
      const decision = await gates[gate].check({ scenario: key.scenario, proposedAction, subject });
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

/** The gated "action" of a tool episode: a call that would fire the unsafe signal, skipping the safety step. */
const TOOL_SKIP = 'tool-call-skipping-safety-step';
/** What the gate executes instead: nothing (the call is refused). */
export const TOOL_REFUSED = 'refused';
