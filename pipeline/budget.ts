// A fail-closed spending cap: each call reserves its upper bound before it is sent; spend can never pass the cap.
import { EvalError } from './core/errors.js';
import { costOf, type Price } from './prices.js';

/** The next call cannot be covered: the run stops scheduling (status `budget`, exit 3). */
export class BudgetExhaustedError extends EvalError {
  readonly limitUsd: number;
  readonly committedUsd: number;
  readonly neededUsd: number;
  constructor(limitUsd: number, committedUsd: number, neededUsd: number) {
    super(
      'budget-exhausted',
      `budget reached: $${committedUsd.toFixed(4)} spent or reserved of --budget-usd ${limitUsd}; the next call could cost up to $${neededUsd.toFixed(4)}`,
    );
    this.limitUsd = limitUsd;
    this.committedUsd = committedUsd;
    this.neededUsd = neededUsd;
  }
}

/** A model without a price under a budget, without `--allow-unpriced`: refused before any call. */
export class UnpricedModelError extends EvalError {
  readonly model: string;
  constructor(model: string) {
    super(
      'unpriced-model',
      `model "${model}" has no known price, so --budget-usd cannot bound it; give one with --prices <file> or pass --allow-unpriced (its spend then counts only what the proxy reports)`,
    );
    this.model = model;
  }
}

/** One call's reservation. */
export interface Reservation {
  model: string;
  upperUsd: number;
}

/** Settings of `createBudget`. */
export interface BudgetSettings {
  limitUsd: number;
  priceOf: (model: string) => Price | null;
  allowUnpriced: boolean;
}

// The prompt is counted with a tokenizer that may differ from the provider's by a few tokens: reserve a margin.
const INPUT_MARGIN = 1.1;
const INPUT_SLACK_TOKENS = 16;

/**
 * Creates a budget. `reserve` is called before a call is sent (synchronously, so concurrent units cannot both take
 * the last dollars); `settle` replaces the reservation by the call's actual cost (the proxy's
 * `x-litellm-response-cost`, else usage × price); a call that failed without a known cost keeps its reservation
 * as spent (fail-closed).
 *
 * @example
 * const budget = createBudget({ limitUsd: 5, priceOf: (m) => priceOf(table, m), allowUnpriced: false });
 * const reservation = budget.reserve('gpt-5-nano', promptTokens, 2000); // throws BudgetExhaustedError
 * budget.settle(reservation, 0.0004);
 */
export function createBudget(settings: BudgetSettings) {
  let spentUsd = 0;
  let reservedUsd = 0;
  let unknownCalls = 0;
  const overruns: string[] = [];
  return {
    /** Checks every model before the run starts: an unpriced one is refused unless allowed. */
    checkModels(models: readonly string[]): void {
      if (settings.allowUnpriced) return;
      for (const model of models) if (settings.priceOf(model) === null) throw new UnpricedModelError(model);
    },
    reserve(model: string, inputTokens: number, maxOutputTokens: number): Reservation {
      const price = settings.priceOf(model);
      if (price === null && !settings.allowUnpriced) throw new UnpricedModelError(model);
      const upperUsd =
        price === null
          ? 0
          : costOf(price, {
              input: Math.ceil(inputTokens * INPUT_MARGIN) + INPUT_SLACK_TOKENS,
              output: maxOutputTokens,
            });
      if (spentUsd + reservedUsd + upperUsd > settings.limitUsd)
        throw new BudgetExhaustedError(settings.limitUsd, spentUsd + reservedUsd, upperUsd);
      reservedUsd += upperUsd;
      return { model, upperUsd };
    },
    /** The call finished; `actualUsd` null = its cost is unknown (an error, or an unpriced model without a proxy cost). */
    settle(reservation: Reservation, actualUsd: number | null): void {
      reservedUsd = Math.max(0, reservedUsd - reservation.upperUsd);
      if (actualUsd === null) {
        spentUsd += reservation.upperUsd;
        unknownCalls += 1;
        return;
      }
      if (actualUsd > reservation.upperUsd && reservation.upperUsd > 0)
        overruns.push(`${reservation.model}: $${actualUsd.toFixed(6)} > reserved $${reservation.upperUsd.toFixed(6)}`);
      spentUsd += actualUsd;
    },
    /** A reservation whose call was never sent (cancelled before sending, cache hit). */
    release(reservation: Reservation): void {
      reservedUsd = Math.max(0, reservedUsd - reservation.upperUsd);
    },
    totals() {
      return {
        limitUsd: settings.limitUsd,
        spentUsd,
        reservedUsd,
        callsWithUnknownCost: unknownCalls,
        overruns: [...overruns],
      };
    },
  };
}

export type Budget = ReturnType<typeof createBudget>;

/** How one attempt ended, for the gate: billed with a known cost, not billed (no answer was produced), or unknown. */
export type AttemptOutcome =
  | { billed: true; usage: { promptTokens: number; completionTokens: number } | null; headers: Record<string, string> }
  | { billed: false }
  | { billed: 'unknown' };

/**
 * The budget as a decision model sees it: `before` each attempt (throws `BudgetExhaustedError` when the attempt
 * cannot be covered, so nothing is sent), `after` it with how it ended. Cost = the proxy's
 * `x-litellm-response-cost`, else usage × price, else (unknown) the reservation itself.
 */
export interface SpendGate {
  before(model: string, messages: readonly { role: string; content: string }[], maxOutputTokens: number): Reservation;
  after(reservation: Reservation, outcome: AttemptOutcome): void;
}

/** A gate over a budget, counting prompts with `countTokens` (the model family's tokenizer) and pricing with `priceOf`. */
export function createSpendGate(
  budget: Budget,
  settings: {
    countTokens: (model: string, messages: readonly { role: string; content: string }[]) => number;
    priceOf: (model: string) => Price | null;
  },
): SpendGate {
  return {
    before: (model, messages, maxOutputTokens) =>
      budget.reserve(model, settings.countTokens(model, messages), maxOutputTokens),
    after(reservation, outcome) {
      if (outcome.billed === false) return budget.release(reservation);
      if (outcome.billed === 'unknown') return budget.settle(reservation, null);
      const proxy = outcome.headers['x-litellm-response-cost'];
      if (proxy !== undefined && Number.isFinite(Number(proxy))) return budget.settle(reservation, Number(proxy));
      const price = settings.priceOf(reservation.model);
      if (price && outcome.usage)
        return budget.settle(
          reservation,
          costOf(price, { input: outcome.usage.promptTokens, output: outcome.usage.completionTokens }),
        );
      budget.settle(reservation, null);
    },
  };
}
