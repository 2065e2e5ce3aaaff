// The budget: fail-closed reservations, unpriced models refused, spend never above the cap.
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError, createBudget, UnpricedModelError } from './budget.js';

const prices = { 'gpt-5-nano': { input: 0.05, output: 0.4, source: 'test' } } as Record<
  string,
  { input: number; output: number; source: string }
>;
const priceOf = (model: string) => prices[model] ?? null;

describe('budget', () => {
  it('reserves the upper bound (input with a margin + max output) and refuses the call that would pass the cap', () => {
    // Upper bound per call: (ceil(1000 × 1.1) + 16) × 0.05e-6 + 2000 × 0.4e-6 = 0.0000558 + 0.0008 = 0.0008558
    const budget = createBudget({ limitUsd: 0.002, priceOf, allowUnpriced: false });
    const first = budget.reserve('gpt-5-nano', 1000, 2000);
    expect(first.upperUsd).toBeCloseTo(0.0008558, 9);
    budget.reserve('gpt-5-nano', 1000, 2000);
    expect(() => budget.reserve('gpt-5-nano', 1000, 2000)).toThrow(BudgetExhaustedError);
    budget.settle(first, 0.0001);
    expect(() => budget.reserve('gpt-5-nano', 1000, 2000)).not.toThrow();
    expect(budget.totals().spentUsd).toBeCloseTo(0.0001, 10);
  });

  it('many concurrent units never commit more than the cap, whatever the settle order', () => {
    const budget = createBudget({ limitUsd: 0.01, priceOf, allowUnpriced: false });
    const held = [];
    for (let i = 0; i < 100; i += 1) {
      try {
        held.push(budget.reserve('gpt-5-nano', 500, 2000));
      } catch (error) {
        expect(error).toBeInstanceOf(BudgetExhaustedError);
      }
    }
    for (const reservation of held.reverse()) budget.settle(reservation, reservation.upperUsd);
    expect(held.length).toBeGreaterThan(0);
    expect(budget.totals().spentUsd).toBeLessThanOrEqual(0.01);
  });

  it('a failed call with unknown cost keeps its reservation as spent (fail-closed)', () => {
    const budget = createBudget({ limitUsd: 1, priceOf, allowUnpriced: false });
    const reservation = budget.reserve('gpt-5-nano', 100, 100);
    budget.settle(reservation, null);
    expect(budget.totals()).toMatchObject({ spentUsd: reservation.upperUsd, reservedUsd: 0, callsWithUnknownCost: 1 });
  });

  it('an unpriced model is refused up front unless --allow-unpriced', () => {
    const strict = createBudget({ limitUsd: 1, priceOf, allowUnpriced: false });
    expect(() => strict.checkModels(['gpt-5-nano', 'my-alias'])).toThrow(UnpricedModelError);
    expect(() => strict.reserve('my-alias', 10, 10)).toThrow(/has no known price/);
    const lenient = createBudget({ limitUsd: 1, priceOf, allowUnpriced: true });
    expect(() => lenient.checkModels(['my-alias'])).not.toThrow();
    const reservation = lenient.reserve('my-alias', 10, 10);
    lenient.settle(reservation, 0.5);
    expect(lenient.totals().spentUsd).toBe(0.5);
  });

  it('release returns a reservation that was never sent', () => {
    const budget = createBudget({ limitUsd: 1, priceOf, allowUnpriced: false });
    const reservation = budget.reserve('gpt-5-nano', 100, 100);
    budget.release(reservation);
    expect(budget.totals()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
  });
});
