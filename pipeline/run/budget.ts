// A fail-closed spending cap: each call reserves its upper bound before it is sent; spend can never pass the cap.
import { EvalError } from '#core/errors.js';
import { costOf, type Price, type PriceTier } from '../models/prices.js';

/**
 * The next call cannot be covered by what is left once spent money is counted: the run stops scheduling (status
 * `budget`, exit 3); calls already sent finish and are recorded.
 */
export class BudgetExhaustedError extends EvalError {
  readonly limitUsd: number;
  readonly spentUsd: number;
  readonly neededUsd: number;
  constructor(limitUsd: number, spentUsd: number, neededUsd: number) {
    super(
      'budget-exhausted',
      `budget reached: $${spentUsd.toFixed(4)} spent of --budget-usd ${limitUsd}; the next call could cost up to $${neededUsd.toFixed(4)}`,
    );
    this.limitUsd = limitUsd;
    this.spentUsd = spentUsd;
    this.neededUsd = neededUsd;
  }
}

/** A model without a price under a budget, without `--allow-unpriced`: refused before any call. */
export class UnpricedModelError extends EvalError {
  readonly model: string;
  constructor(model: string, tier: PriceTier = 'standard') {
    const what =
      tier === 'batch'
        ? 'no known batch price (--batch bills at it); give one with --prices <file> ({"<model>": {..., "batch": {"input": ..., "output": ...}}})'
        : 'no known price, so --budget-usd cannot bound it; give one with --prices <file>';
    super(
      'unpriced-model',
      `model "${model}" has ${what} or pass --allow-unpriced (its spend then counts only what the proxy reports)`,
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
  /** The tier `priceOf` prices in (`batch` under `--batch`), named by an unpriced model's error; default standard. */
  tier?: PriceTier;
}

/** A reservation that waits for calls in flight to settle. */
interface Waiter {
  reservation: Reservation;
  signal: AbortSignal | undefined;
  grant: () => void;
  refuse: (error: Error) => void;
}

// The prompt is counted with a tokenizer that may differ from the provider's by a few tokens: reserve a margin.
const INPUT_MARGIN = 1.1;
const INPUT_SLACK_TOKENS = 16;

/**
 * Creates a budget. `reserve` is called before a call is sent; `settle` replaces the reservation by the call's actual
 * cost (the proxy's `x-litellm-response-cost`, else usage × price); a call that may have been billed without a known
 * cost keeps its reservation as spent (fail-closed); `release` returns the reservation of a call never sent.
 *
 * Spent plus reserved never passes the limit. A call whose upper bound fits beside what is spent but not beside the
 * reservations of calls in flight waits (first come, first served) for them to settle instead of failing: only a
 * call that cannot fit beside what is spent exhausts the budget. Under concurrency the run therefore sends every call
 * that fits, fewer at a time, and a reservation is never counted for a call that was not sent.
 *
 * @example
 * const budget = createBudget({ limitUsd: 5, priceOf: (m) => priceOf(table, m), allowUnpriced: false });
 * const reservation = await budget.reserve('gpt-5-nano', promptTokens, 2000, signal); // rejects with BudgetExhaustedError
 * budget.settle(reservation, 0.0004);
 */
export function createBudget(settings: BudgetSettings) {
  let spentUsd = 0;
  let reservedUsd = 0;
  let outstanding = 0;
  let unknownCalls = 0;
  const overruns: string[] = [];
  const waiting: Waiter[] = [];
  const watched = new WeakSet<AbortSignal>();
  const exhausted = (reservation: Reservation) =>
    new BudgetExhaustedError(settings.limitUsd, spentUsd, reservation.upperUsd);
  const hold = (reservation: Reservation) => {
    reservedUsd += reservation.upperUsd;
    outstanding += 1;
  };
  const unhold = (reservation: Reservation) => {
    outstanding -= 1;
    // No float residue once nothing is in flight: a waiter must never wait for a reservation that does not exist.
    reservedUsd = outstanding === 0 ? 0 : Math.max(0, reservedUsd - reservation.upperUsd);
    pump();
  };
  function pump(): void {
    while (waiting.length > 0) {
      const head = waiting[0]!;
      if (spentUsd + head.reservation.upperUsd > settings.limitUsd) {
        waiting.shift();
        head.refuse(exhausted(head.reservation));
        continue;
      }
      if (spentUsd + reservedUsd + head.reservation.upperUsd > settings.limitUsd) return;
      waiting.shift();
      hold(head.reservation);
      head.grant();
    }
  }
  function cancelWaiters(signal: AbortSignal): void {
    for (let i = waiting.length - 1; i >= 0; i -= 1)
      if (waiting[i]!.signal === signal)
        waiting.splice(i, 1)[0]!.refuse(new Error('cancelled while waiting for the budget'));
    pump();
  }
  return {
    /** Checks every model before the run starts: an unpriced one is refused unless allowed. */
    checkModels(models: readonly string[]): void {
      if (settings.allowUnpriced) return;
      for (const model of models)
        if (settings.priceOf(model) === null) throw new UnpricedModelError(model, settings.tier);
    },
    /**
     * Reserves a call's upper bound: at once when it fits, after calls in flight settle when it fits beside what is
     * spent only; rejects with `BudgetExhaustedError` when it cannot fit beside what is spent, and with a plain error
     * when `signal` aborts while it waits (nothing is reserved then).
     */
    reserve(model: string, inputTokens: number, maxOutputTokens: number, signal?: AbortSignal): Promise<Reservation> {
      const price = settings.priceOf(model);
      if (price === null && !settings.allowUnpriced)
        return Promise.reject(new UnpricedModelError(model, settings.tier));
      const upperUsd =
        price === null
          ? 0
          : costOf(price, {
              input: Math.ceil(inputTokens * INPUT_MARGIN) + INPUT_SLACK_TOKENS,
              output: maxOutputTokens,
            });
      const reservation: Reservation = { model, upperUsd };
      if (signal?.aborted) return Promise.reject(new Error('cancelled while waiting for the budget'));
      if (spentUsd + upperUsd > settings.limitUsd) return Promise.reject(exhausted(reservation));
      if (waiting.length === 0 && spentUsd + reservedUsd + upperUsd <= settings.limitUsd) {
        hold(reservation);
        return Promise.resolve(reservation);
      }
      return new Promise<Reservation>((resolve, reject) => {
        // One abort listener per signal (a run's calls share one), not one per waiting call.
        if (signal && !watched.has(signal)) {
          watched.add(signal);
          signal.addEventListener('abort', () => cancelWaiters(signal), { once: true });
        }
        waiting.push({ reservation, signal, grant: () => resolve(reservation), refuse: reject });
      });
    },
    /** The call finished; `actualUsd` null = its cost is unknown (it may have been billed: a timeout, an abort in flight). */
    settle(reservation: Reservation, actualUsd: number | null): void {
      if (actualUsd === null) {
        spentUsd += reservation.upperUsd;
        unknownCalls += 1;
      } else {
        if (actualUsd > reservation.upperUsd && reservation.upperUsd > 0)
          overruns.push(
            `${reservation.model}: $${actualUsd.toFixed(6)} > reserved $${reservation.upperUsd.toFixed(6)}`,
          );
        spentUsd += actualUsd;
      }
      unhold(reservation);
    },
    /** A reservation whose call was never sent (cancelled before sending, refused by the endpoint unanswered). */
    release(reservation: Reservation): void {
      unhold(reservation);
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
 * The budget as a decision model sees it: `before` each attempt (waits while calls in flight hold the money it needs;
 * rejects with `BudgetExhaustedError` when the attempt cannot be covered, so nothing is sent), `after` it with how it
 * ended: not billed releases the reservation, unknown keeps it as spent. Cost = the proxy's
 * `x-litellm-response-cost`, else usage × price, else (unknown) the reservation itself.
 */
export interface SpendGate {
  before(
    model: string,
    messages: readonly { role: string; content: string }[],
    maxOutputTokens: number,
    signal?: AbortSignal,
  ): Promise<Reservation>;
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
    before: (model, messages, maxOutputTokens, signal) =>
      budget.reserve(model, settings.countTokens(model, messages), maxOutputTokens, signal),
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
