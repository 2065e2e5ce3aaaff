// The budget: fail-closed reservations, waiting for calls in flight instead of failing, unpriced models refused,
// spend never above the cap.
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError, createBudget, UnpricedModelError, type Reservation } from './budget.js';

const prices = { 'gpt-5-nano': { input: 0.05, output: 0.4, source: 'test' } } as Record<
  string,
  { input: number; output: number; source: string }
>;
const priceOf = (model: string) => prices[model] ?? null;
// Upper bound per call: (ceil(1000 × 1.1) + 16) × 0.05e-6 + 2000 × 0.4e-6 = 0.0000558 + 0.0008 = 0.0008558
const UPPER = 0.0008558;

/** The state of a promise once the microtasks queued so far have run. */
async function stateOf<T>(promise: Promise<T>): Promise<'pending' | 'granted' | 'refused'> {
  let state: 'pending' | 'granted' | 'refused' = 'pending';
  promise.then(
    () => {
      state = 'granted';
    },
    () => {
      state = 'refused';
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
}

describe('budget', () => {
  it('reserves the upper bound (input with a margin + max output); a call that fits beside what is spent waits for calls in flight', async () => {
    const budget = createBudget({ limitUsd: 0.002, priceOf, allowUnpriced: false });
    const first = await budget.reserve('gpt-5-nano', 1000, 2000);
    expect(first.upperUsd).toBeCloseTo(UPPER, 9);
    await budget.reserve('gpt-5-nano', 1000, 2000);
    // A third upper bound does not fit beside the two in flight, but fits beside $0 spent: it waits, it does not fail.
    const third = budget.reserve('gpt-5-nano', 1000, 2000);
    expect(await stateOf(third)).toBe('pending');
    budget.settle(first, 0.0001);
    expect(await stateOf(third)).toBe('granted');
    expect(budget.totals().spentUsd).toBeCloseTo(0.0001, 10);
    expect(budget.totals().reservedUsd).toBeCloseTo(2 * UPPER, 10);
  });

  it('refuses only a call that cannot fit beside what is spent, at once or when its wait ends', async () => {
    const budget = createBudget({ limitUsd: 0.002, priceOf, allowUnpriced: false });
    const first = await budget.reserve('gpt-5-nano', 1000, 2000);
    const second = await budget.reserve('gpt-5-nano', 1000, 2000);
    const waiting = budget.reserve('gpt-5-nano', 1000, 2000);
    // The first call cost its whole upper bound, the second nothing to speak of: 0.0008558 + 0.0008558 ≤ 0.002.
    budget.settle(first, UPPER);
    expect(await stateOf(waiting)).toBe('pending');
    budget.settle(second, 0.0005);
    // Spent 0.0013558 + 0.0008558 > 0.002: it can never fit, so it is refused; nothing was reserved for it.
    await expect(waiting).rejects.toBeInstanceOf(BudgetExhaustedError);
    await expect(waiting).rejects.toThrow(
      'budget reached: $0.0014 spent of --budget-usd 0.002; the next call could cost up to $0.0009',
    );
    await expect(budget.reserve('gpt-5-nano', 1000, 2000)).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(budget.totals()).toMatchObject({ reservedUsd: 0, callsWithUnknownCost: 0 });
    expect(budget.totals().spentUsd).toBeCloseTo(UPPER + 0.0005, 10);
  });

  it('waiting calls are served first come, first served', async () => {
    const budget = createBudget({ limitUsd: 0.002, priceOf, allowUnpriced: false });
    const held = [await budget.reserve('gpt-5-nano', 1000, 2000), await budget.reserve('gpt-5-nano', 1000, 2000)];
    const order: number[] = [];
    const waiters = [0, 1, 2].map((i) =>
      budget.reserve('gpt-5-nano', 1000, 2000).then((reservation) => {
        order.push(i);
        return reservation;
      }),
    );
    budget.settle(held[0]!, 0);
    await stateOf(waiters[0]!);
    expect(order).toEqual([0]);
    budget.settle(held[1]!, 0);
    budget.settle(await waiters[0]!, 0);
    await Promise.all([waiters[1], waiters[2]]);
    expect(order).toEqual([0, 1, 2]);
  });

  it('a call whose wait is aborted is refused and reserves nothing', async () => {
    const budget = createBudget({ limitUsd: 0.002, priceOf, allowUnpriced: false });
    const held = [await budget.reserve('gpt-5-nano', 1000, 2000), await budget.reserve('gpt-5-nano', 1000, 2000)];
    const controller = new AbortController();
    const waiting = budget.reserve('gpt-5-nano', 1000, 2000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow('cancelled while waiting for the budget');
    for (const reservation of held) budget.release(reservation);
    expect(budget.totals()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
    await expect(budget.reserve('gpt-5-nano', 1000, 2000, controller.signal)).rejects.toThrow(/cancelled/);
  });

  it('many concurrent calls never commit more than the cap, whatever the settle order, and every waiter ends', async () => {
    const budget = createBudget({ limitUsd: 0.01, priceOf, allowUnpriced: false });
    let peak = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, async (_, i) => {
        const reservation = await budget.reserve('gpt-5-nano', 500, 2000);
        const { spentUsd, reservedUsd } = budget.totals();
        peak = Math.max(peak, spentUsd + reservedUsd);
        await new Promise((resolve) => setImmediate(resolve));
        budget.settle(reservation, i % 3 === 0 ? null : reservation.upperUsd / 4);
      }),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThan(11);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(BudgetExhaustedError);
    expect(peak).toBeLessThanOrEqual(0.01);
    expect(budget.totals().spentUsd).toBeLessThanOrEqual(0.01);
    expect(budget.totals().reservedUsd).toBe(0);
  });

  it('a failed call with unknown cost keeps its reservation as spent (fail-closed)', async () => {
    const budget = createBudget({ limitUsd: 1, priceOf, allowUnpriced: false });
    const reservation = await budget.reserve('gpt-5-nano', 100, 100);
    budget.settle(reservation, null);
    expect(budget.totals()).toMatchObject({ spentUsd: reservation.upperUsd, reservedUsd: 0, callsWithUnknownCost: 1 });
  });

  it('an unpriced model is refused up front unless --allow-unpriced', async () => {
    const strict = createBudget({ limitUsd: 1, priceOf, allowUnpriced: false });
    expect(() => strict.checkModels(['gpt-5-nano', 'my-alias'])).toThrow(UnpricedModelError);
    await expect(strict.reserve('my-alias', 10, 10)).rejects.toThrow(/has no known price/);
    const lenient = createBudget({ limitUsd: 1, priceOf, allowUnpriced: true });
    expect(() => lenient.checkModels(['my-alias'])).not.toThrow();
    const reservation: Reservation = await lenient.reserve('my-alias', 10, 10);
    lenient.settle(reservation, 0.5);
    expect(lenient.totals().spentUsd).toBe(0.5);
  });

  it('release returns a reservation that was never sent', async () => {
    const budget = createBudget({ limitUsd: 1, priceOf, allowUnpriced: false });
    const reservation = await budget.reserve('gpt-5-nano', 100, 100);
    budget.release(reservation);
    expect(budget.totals()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
  });
});
