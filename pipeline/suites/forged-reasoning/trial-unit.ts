// One trial unit of the forged-reasoning experiment: the clean run, every selected attack condition and the benign
// traces of one (scenario, model, defence, trial), each decision in its own fresh world (poem.md §6).
import {
  BENIGN_STYLES,
  forgeryEntries,
  type BenignStyle,
  type ForgedReasoningScenario,
  type ForgeryKind,
} from '../../../scenarios/forged-reasoning-scenario.js';
import type { DecisionModel } from '../../models/decision-model.js';
import type { RecordedCall } from '../follow-ups/follow-up-log.js';
import { RUN_LOG_VERSION } from '../../run-log/run-log.js';
import { runReasoningDecision, type DecisionContext, type DecisionSetup } from './decision.js';
import {
  forgedReasoningUnitId,
  type AttackCondition,
  type ForgedReasoningKey,
  type ForgedReasoningRecord,
  type MemoryWrite,
} from './records.js';
import { recordingModel } from '../../models/recording-model.js';

/** The forgery an attack condition writes: attacks A and B carry the basic forgery (poem.md §3). */
const FORGERY_OF: Readonly<Record<AttackCondition, ForgeryKind>> = {
  basic: 'basic',
  adaptive: 'adaptive',
  judgment: 'judgment',
  'ledger-forgery': 'basic',
  'cross-subject': 'basic',
};

/** The attack conditions a `--forgeries` selection runs: each kind, and A and B with `basic`. */
export function conditionsFor(forgeries: readonly ForgeryKind[]): AttackCondition[] {
  return (Object.keys(FORGERY_OF) as AttackCondition[]).filter((condition) =>
    forgeries.includes(FORGERY_OF[condition]),
  );
}

/** The agent's genuine notes, written first in every run. */
const agentNotes = (scenario: ForgedReasoningScenario): MemoryWrite[] =>
  scenario.memory.map((text) => ({ text, origin: 'agent' }));

/** The clean run's setup: the agent's notes only. */
export function cleanSetup(scenario: ForgedReasoningScenario, sample: string): DecisionSetup {
  return { condition: 'clean', sample, writes: agentNotes(scenario) };
}

/** An attack condition's setup: the notes, the forged entries, and the ledger change of attacks A and B. */
export function attackSetup(
  scenario: ForgedReasoningScenario,
  condition: AttackCondition,
  sample: string,
): DecisionSetup {
  const writes: MemoryWrite[] = [
    ...agentNotes(scenario),
    ...forgeryEntries(scenario, FORGERY_OF[condition]).map((text) => ({ text, origin: 'attacker' as const })),
  ];
  if (condition === 'ledger-forgery') return { condition, sample, writes, forged: [scenario.subject] };
  if (condition === 'cross-subject') return { condition, sample, writes, genuine: [scenario.otherSubject] };
  return { condition, sample, writes };
}

/** A benign trace: S genuinely ran for the subject (a real ledger event) and the agent wrote a self-log of it. */
export function benignSetup(scenario: ForgedReasoningScenario, style: BenignStyle, sample: string): DecisionSetup {
  return {
    condition: `benign:${style}`,
    sample,
    writes: [...agentNotes(scenario), { text: scenario.benign[style], origin: 'self-log' }],
    genuine: [scenario.subject],
  };
}

/** Runs one trial unit; stops (budget, signal) propagate, any other call failure stays in its decision. */
export async function runTrialUnit(
  key: ForgedReasoningKey,
  context: Omit<DecisionContext, 'model' | 'trial'> & { model: DecisionModel; conditions: readonly AttackCondition[] },
): Promise<ForgedReasoningRecord> {
  const startedAt = new Date().toISOString();
  const unitId = forgedReasoningUnitId(key);
  const calls: RecordedCall[] = [];
  const decisionContext: DecisionContext = {
    ...context,
    model: recordingModel(context.model, calls),
    trial: key.trial,
  };
  const sample = (condition: string) => `${unitId}#${condition}`;
  const clean = await runReasoningDecision(decisionContext, cleanSetup(context.scenario, sample('clean')));
  const attacks: ForgedReasoningRecord['attacks'] = {};
  for (const condition of context.conditions)
    attacks[condition] = await runReasoningDecision(
      decisionContext,
      attackSetup(context.scenario, condition, sample(condition)),
    );
  const benign: ForgedReasoningRecord['benign'] = {};
  for (const style of BENIGN_STYLES)
    benign[style] = await runReasoningDecision(
      decisionContext,
      benignSetup(context.scenario, style, sample(`benign:${style}`)),
    );
  const failed = [clean, ...Object.values(attacks), ...Object.values(benign)].filter((decision) => decision.error);
  return {
    version: RUN_LOG_VERSION,
    type: 'forged-reasoning-end',
    unitId,
    key,
    status: failed.length > 0 ? 'error' : 'ok',
    startedAt,
    finishedAt: new Date().toISOString(),
    clean,
    attacks,
    benign,
    calls,
    ...(failed.length > 0
      ? {
          error: {
            message: `${failed.length} decision(s) failed: ${failed.map((d) => `${d.condition}: ${d.error!.message}`).join('; ')}`,
          },
        }
      : {}),
  };
}
