// A follow-up experiment's plan (`--dry-run`, the cost confirmation): calls per unit are a range (they depend on the
// replies), prompts are estimated from each scenario's seeded texts, and the response cache is not checked.
import { axisChoiceOf } from '../../defences/axes/index.js';
import type { ChatMessage } from '../../models/decision-model.js';
import { modelPlan, type PlanInput, type PlanRow, type RunPlan } from '../../run/run-plan.js';
import { buildDecisionMessages } from '../grid/prompts.js';
import type { FollowUpSteps } from './experiment.js';
import { followUpUnitIdOf } from './follow-up-log.js';
import { enumerateFollowUpUnits, readFollowUpRecords } from './phase.js';

/** The plan of follow-up `experiment`: one row per (system, mode, arm), a range of calls per unit. */
export async function planFollowUp(input: PlanInput, experiment: FollowUpSteps): Promise<RunPlan> {
  const { spec } = input;
  const scenarios = input.exploit ? input.exploitScenarios : input.scenarios;
  const keys = enumerateFollowUpUnits({
    experiment,
    modes: spec.modes,
    systems: spec.systems,
    scenarios,
    models: input.models,
    trials: spec.trials,
    axes: axisChoiceOf(spec),
    arms: spec.arms,
    limit: spec.limit ?? null,
  });
  const existing = readFollowUpRecords(input.runDir, experiment.id);
  const rows = new Map<string, PlanRow>();
  const perModel = new Map<string, { min: number; max: number; prompts: ChatMessage[][] }>();
  for (const key of keys) {
    const rowId = [key.system, key.mode, key.arm].join('\0');
    const row = rows.get(rowId) ?? {
      experiment: experiment.id,
      system: key.system,
      mode: key.mode,
      arm: key.arm,
      units: 0,
      done: 0,
      calls: { min: 0, max: 0 },
      cached: null,
    };
    rows.set(rowId, row);
    row.units += 1;
    const previous = existing.get(followUpUnitIdOf(key));
    if (previous && !(spec.retryErrors && previous.status === 'error')) {
      row.done += 1;
      continue;
    }
    const range = experiment.calls(spec, key.arm);
    row.calls.min += range.min;
    row.calls.max += range.max;
    const entry = perModel.get(key.model) ?? { min: 0, max: 0, prompts: [] };
    perModel.set(key.model, entry);
    entry.min += range.min;
    entry.max += range.max;
    entry.prompts.push(estimatedPrompt(key.scenario, input));
  }
  const notes = [
    `${experiment.id}: calls per unit depend on the replies (a range); prompts are estimated from each scenario's seeded texts, and the response cache is not checked (later prompts depend on earlier replies)`,
  ];
  const models = await Promise.all(
    input.models.map(async (model) => {
      const entry = perModel.get(model.description.id) ?? { min: 0, max: 0, prompts: [] };
      return modelPlan(input, model, entry.min, entry.max, 0, entry.prompts);
    }),
  );
  return { rows: [...rows.values()], models, notes };
}

/** A follow-up prompt estimate: every seeded text of the scenario as facts, with the grid's prompt. */
function estimatedPrompt(scenarioId: string, input: PlanInput): ChatMessage[] {
  const policy = input.scenarios.find((s) => s.id === scenarioId);
  if (policy)
    return buildDecisionMessages({
      facts: [policy.v1, policy.v2, ...policy.distractors],
      task: policy.task,
      actions: policy.actions,
      guardrail: policy.guardrail,
      harden: false,
    });
  const exploit = input.exploitScenarios.find((s) => s.id === scenarioId)!;
  return [{ role: 'user', content: `${exploit.v1}\n${exploit.v2}\n${exploit.task}` }];
}
