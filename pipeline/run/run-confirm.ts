// The plan phase of one run: printed by --dry-run; for a real run, its upper cost decides whether to ask first.
import { createOfflineExtractionModel } from '../../backends/model-roles.js';
import { InvalidInputError } from '#core/errors.js';
import type { DecisionModel, DecisionRequest } from '../models/decision-model.js';
import type { RunParts } from './run-parts.js';
import { formatPlan, planRun, planUpperUsd, type PlanRules, type RunPlan } from './run-plan.js';
import type { RunSpec } from './run-spec.js';

/** What the confirmation needs of the invocation's options. */
export interface ConfirmOptions {
  /** Asks the user (a TTY); absent: a run above `--confirm-above-usd` needs `--yes`. */
  confirm?: (question: string) => Promise<boolean>;
}

/**
 * A budget is consent: `--budget-usd` at or below `--confirm-above-usd` caps what the run can spend below the
 * threshold, as long as every real model has a price (the budget bounds it; `--allow-unpriced` models it cannot).
 */
function budgetIsConsent(spec: RunSpec, parts: Pick<RunParts, 'modelComponents' | 'priceOf'>): boolean {
  const { budgetUsd, confirmAboveUsd } = spec.control;
  if (budgetUsd === null || budgetUsd > confirmAboveUsd) return false;
  return parts.modelComponents
    .map((component) => component.model.description)
    .every((model) => model.simulated || parts.priceOf(model.id) !== null);
}

/**
 * The plan, when the run needs one: for a `--dry-run`, and for a real run that calls a real model without `--yes`
 * (unless a budget is consent, `budgetIsConsent`); null otherwise. Sends nothing.
 */
export async function planIfNeeded(
  spec: RunSpec,
  parts: RunParts,
  dryRun: boolean,
  phase: PlanRules,
): Promise<RunPlan | null> {
  const { models, modelComponents } = parts;
  const realModels = models.filter((m) => !m.description.simulated);
  if (!dryRun && budgetIsConsent(spec, parts)) return null;
  if (!(dryRun || (realModels.length > 0 && !spec.control.assumeYes))) return null;
  const cacheLookup = (model: DecisionModel, request: DecisionRequest) =>
    modelComponents.find((component) => component.model === model)?.capabilities.cacheLookup?.(request) ?? false;
  // Under `--batch` the plan prices every model twice: at the standard (synchronous) price and at the batch price.
  return await planRun(
    {
      ...parts,
      spec,
      priceOf: parts.standardPriceOf,
      ...(spec.control.batch ? { batchPriceOf: parts.priceOf } : {}),
      simExtraction: await createOfflineExtractionModel(),
      cacheLookup,
    },
    phase,
  );
}

/**
 * A real run whose planned upper cost is unknown or above `--confirm-above-usd` goes ahead only when the user
 * confirms; otherwise this throws an `InvalidInputError` on `--yes`. No plan (`planIfNeeded` said none is needed):
 * nothing to ask.
 */
export async function confirmCost(spec: RunSpec, plan: RunPlan | null, options: ConfirmOptions): Promise<void> {
  if (plan === null) return;
  const upper = planUpperUsd(plan);
  if (upper === null || upper > spec.control.confirmAboveUsd) {
    const question = `${formatPlan(plan)}\n\nThis run may cost ${upper === null ? 'an unknown amount (a model has no known price)' : `up to $${upper.toFixed(2)}`}, above --confirm-above-usd ${spec.control.confirmAboveUsd}. Start it?`;
    const accepted = options.confirm ? await options.confirm(question) : false;
    if (!accepted) {
      throw new InvalidInputError('command line', [
        {
          path: '--yes',
          message: `${options.confirm ? 'not confirmed' : 'not a terminal, so nobody can confirm'}: the planned upper cost is ${upper === null ? 'unknown (a model has no known price; give one with --prices)' : `$${upper.toFixed(2)}`}, above --confirm-above-usd ${spec.control.confirmAboveUsd}. See it with --dry-run; start it with --yes, or with a --budget-usd cap at or below --confirm-above-usd (a budget is consent)`,
        },
      ]);
    }
  }
}
