// Forged reasoning (poem.md §6) as a suite (SuiteV1, issue #27 item 1): its arguments, its units (every trial unit, then
// one adaptive-attacker loop per scenario and model), how one runs, and its summary over the stored records. Its
// records keep their own file, `forged-reasoning.jsonl`, as analysis reads it. `pnpm eval --experiment
// forged-reasoning` runs it (./run-phase.ts), handing its setup the run's models: their budget, cache and breaker.
import { z } from 'zod';
import { type ForgedReasoningSummary, summarizeForgedReasoning } from '../../../analysis/index.js';
import { FORGERY_KINDS, type ForgedReasoningScenario } from '../../../scenarios/forged-reasoning-scenario.js';
import { unitDefences } from '../../defences/compose.js';
import type { DecisionModel } from '../../models/decision-model.js';
import type { SuiteUnit, SuiteV1 } from '../../run/suite.js';
import { agentIdSchema, type ReasoningAgent } from './agents.js';
import { runAttackerLoop } from './attacker-loop.js';
import { createModelAttacker } from './model-attacker.js';
import { createMutationEngine } from './mutation-engine.js';
import {
  attackerUnitId,
  FORGED_REASONING,
  FORGED_REASONING_RECORDS,
  forgedReasoningUnitId,
  type AttackCondition,
  type AttackerKey,
  type ForgedReasoningKey,
  type ForgedReasoningLine,
} from './records.js';
import { runTrialUnit } from './trial-unit.js';

/** What a forged-reasoning run measures: its identity, resolved (the scenario set loaded, the models built). */
export const forgedReasoningArgsSchema = z
  .object({
    /** `--scenarios` as given (empty: all); the summary has a row per named scenario, and `*`. */
    scenarios: z.array(z.string()),
    /** The scenario set loaded for the run, in file order: what the units run on. */
    scenarioIds: z.array(z.string()).min(1),
    /** The victim models (their alias is `id`), as the manifest describes them. */
    models: z.array(z.object({ id: z.string(), label: z.string(), simulated: z.boolean() }).passthrough()).min(1),
    /** Registered defence ids (the experiment's arms). */
    arms: z.array(z.string()).min(1),
    forgeries: z.array(z.enum(FORGERY_KINDS)),
    trials: z.number().int().min(1),
    /** `--attacker-model`: a model alias, `mutation-engine`, or null (no attacker loops). */
    attacker: z.string().nullable(),
    /** Attacker queries per loop at most. */
    attackerQueries: z.number().int().min(1),
    agent: agentIdSchema,
  })
  .strict();
export type ForgedReasoningArgs = z.infer<typeof forgedReasoningArgsSchema>;

/** One unit: a trial (stage 0) or, once every trial is recorded, an attacker loop (stage 1). */
export type ForgedReasoningUnit = SuiteUnit &
  (
    | { readonly part: 'trial'; readonly key: ForgedReasoningKey }
    | { readonly part: 'attacker'; readonly key: AttackerKey }
  );

/** What the units share: the loaded scenarios, the run's models, the agent, the ledger key, the attacker. */
export interface ForgedReasoningSetup {
  scenarios: ReadonlyMap<string, ForgedReasoningScenario>;
  /** The victims by alias. */
  models: ReadonlyMap<string, DecisionModel>;
  agent: ReasoningAgent;
  /** The execution ledger's key (the run's, else one made for this invocation). */
  ledgerKey: Uint8Array;
  /** The attacker: a model (`model` set, `id` its alias), the offline mutation engine, or null. */
  attacker: { id: string; model?: DecisionModel } | null;
  /** The poisoned conditions of a trial (conditionsFor the args' forgeries). */
  conditions: readonly AttackCondition[];
  /** Attacker queries per loop at most (the args' `attackerQueries`). */
  maxQueries: number;
}

/** The trial keys in loop order (scenario → model → trial → defence), then the attacker keys (scenario → model). */
export function enumerateForgedReasoningUnits(input: {
  scenarioIds: readonly string[];
  modelIds: readonly string[];
  defences: readonly string[];
  trials: number;
  attacker: string | null;
}): { trials: ForgedReasoningKey[]; attackers: AttackerKey[] } {
  const trials: ForgedReasoningKey[] = [];
  const attackers: AttackerKey[] = [];
  for (const scenario of input.scenarioIds)
    for (const model of input.modelIds) {
      for (let trial = 0; trial < input.trials; trial += 1)
        for (const defence of input.defences)
          trials.push({ experiment: FORGED_REASONING, scenario, model, defence, trial });
      if (input.attacker !== null)
        attackers.push({
          experiment: FORGED_REASONING,
          part: 'adaptive-attacker',
          scenario,
          model,
          attacker: input.attacker,
        });
    }
  return { trials, attackers };
}

/** The summary of forged-reasoning records: a forged-reasoning run's arguments stand for its manifest. */
function summarize(records: readonly ForgedReasoningLine[], args: ForgedReasoningArgs): ForgedReasoningSummary {
  return summarizeForgedReasoning(
    { models: args.models, spec: { scenarios: args.scenarios, arms: args.arms, agent: args.agent } },
    records,
  );
}

/**
 * The forged-reasoning suite. Its setup is the caller's (`pnpm eval` builds the models with the run's budget and
 * cache); it has no exit rule of its own (the run's ending is the exit code) and no renderer (its run kind,
 * analysis/forged-reasoning/run-kind.ts, reports it).
 *
 * @example const units = forgedReasoningSuite.plan(args); // trials, then attacker loops
 */
export const forgedReasoningSuite: SuiteV1<
  ForgedReasoningArgs,
  ForgedReasoningUnit,
  ForgedReasoningLine,
  ForgedReasoningSummary,
  ForgedReasoningSetup
> = {
  specificationVersion: 'v1',
  id: FORGED_REASONING,
  args: forgedReasoningArgsSchema,
  plan(args) {
    const { trials, attackers } = enumerateForgedReasoningUnits({
      scenarioIds: args.scenarioIds,
      modelIds: args.models.map((model) => model.id),
      defences: args.arms,
      trials: args.trials,
      attacker: args.attacker,
    });
    return [
      ...trials.map((key) => ({
        id: forgedReasoningUnitId(key),
        cell: `${key.scenario}/${key.model}/${key.defence}`,
        part: 'trial' as const,
        key,
      })),
      ...attackers.map((key) => ({
        id: attackerUnitId(key),
        cell: `${key.scenario}/${key.model}/attacker`,
        stage: 1,
        part: 'attacker' as const,
        key,
      })),
    ];
  },
  records: FORGED_REASONING_RECORDS,
  // A unit any of whose calls raised is recorded as an error: `--retry-errors` runs it again.
  rerun: (record) => record.status === 'error',
  runUnit(unit, { setup, signal }) {
    const scenario = setup.scenarios.get(unit.key.scenario)!;
    const model = setup.models.get(unit.key.model)!;
    const agent = setup.agent;
    if (unit.part === 'trial')
      return runTrialUnit(unit.key, {
        scenario,
        model,
        ledgerKey: setup.ledgerKey,
        defences: unitDefences({ uses: [unit.key.defence], guard: false, poem: false }),
        conditions: setup.conditions,
        agent,
        signal,
      });
    const attacker = setup.attacker;
    return runAttackerLoop({
      key: unit.key,
      scenario,
      model,
      ledgerKey: setup.ledgerKey,
      maxQueries: setup.maxQueries,
      agent,
      signal,
      attacker: (record, sample) =>
        attacker?.model
          ? createModelAttacker(record(attacker.model), scenario, sample, signal)
          : createMutationEngine(scenario),
    });
  },
  summarize: (records, args) => summarize(records, args),
  exitCode: () => 0,
};
