// The final spend lines: the run's total, this invocation's share on a resume, the budget, and a budget that counted
// money the recorded units do not show.
import { describe, expect, it } from 'vitest';
import { formatAccount, type RunAccount } from './run-accounting.js';
import type { ModelUsage } from './usage-totals.js';

const usage = (sent: number, costUsd: number | null): ModelUsage => ({
  model: 'gpt-5-nano',
  replies: sent,
  sent,
  offline: 0,
  cacheHits: 0,
  attempts: sent,
  inputTokens: 10 * sent,
  outputTokens: 5 * sent,
  reasoningTokens: 0,
  costUsd,
  unknownCost: costUsd === null ? 1 : 0,
  costSources: { proxy: 0, price: sent },
});
const account = (run: ModelUsage): RunAccount => ({
  units: 18,
  done: 18,
  errored: 0,
  completed: 18,
  unparseable: 0,
  cacheHits: 0,
  cacheMisses: run.sent,
  usage: [run],
  provenance: [],
  failedUnits: [],
});
const budget = (spentUsd: number, callsWithUnknownCost = 0) => ({ limitUsd: 6, spentUsd, callsWithUnknownCost });

describe('formatAccount', () => {
  it('a fresh run: the per-model line and the budget line give the same dollars', () => {
    expect(
      formatAccount(account(usage(18, 0.1683)), {
        budget: budget(0.1683),
        invocation: [usage(18, 0.1683)],
        resumed: false,
      }),
    ).toEqual([
      'spend gpt-5-nano: 18 call(s) sent (18 attempts), 0 cache hit(s), 180 input / 90 output tokens, $0.1683',
      'budget: $0.1683 spent of $6 (this invocation)',
    ]);
  });

  it("a resume labels the run's total and says this invocation's calls beside it, 0 when it sent nothing", () => {
    expect(formatAccount(account(usage(18, 0.1683)), { budget: budget(0), invocation: [], resumed: true })).toEqual([
      'spend gpt-5-nano: 18 call(s) sent (18 attempts), 0 cache hit(s), 180 input / 90 output tokens, $0.1683 (run total); 0 calls sent by this invocation, $0.0000',
      'budget: $0.0000 spent of $6 (this invocation)',
    ]);
    expect(
      formatAccount(account(usage(18, 0.1683)), { budget: null, invocation: [usage(1, 0.01)], resumed: true })[0],
    ).toMatch(/\(run total\); 1 call sent by this invocation, \$0\.0100$/);
  });

  it('calls of unknown cost are named on the budget line; money the recorded units do not show is warned about', () => {
    const unknown = formatAccount(account(usage(2, 0.02)), {
      budget: budget(2.02, 1),
      invocation: [usage(2, 0.02)],
      resumed: false,
    });
    expect(unknown[1]).toBe(
      'budget: $2.0200 spent of $6 (this invocation; 1 call(s) of unknown cost counted at their upper bound)',
    );
    expect(unknown).toHaveLength(2);
    const unrecorded = formatAccount(account(usage(2, 0.02)), {
      budget: budget(0.03),
      invocation: [usage(2, 0.02)],
      resumed: false,
    });
    expect(unrecorded.at(-1)).toBe(
      'warning: the budget counted $0.030000 but the units this invocation recorded cost $0.020000: the difference was billed for units that were not recorded (cut by a stop, or failed after their reply)',
    );
  });
});
