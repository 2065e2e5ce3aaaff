// The control plane of one eval invocation: why it stops (signal, breaker, budget), its progress, its spend and the exit code.
import type { PriceLookup } from '../models/prices.js';
import type { BudgetExhaustedError } from './budget.js';
import { createCircuitBreaker, type CircuitBreakerSettings } from '../models/circuit-breaker.js';
import type { AttemptResult } from '#core/retry-policy.js';
import type { DecisionResponse } from '../models/decision-model.js';
import { createProgress, type ProgressSettings } from './progress.js';
import { createUsageTally, totalCostUsd, type ModelUsage } from './usage-totals.js';

/** Why a run stopped before its last unit. */
export type StopReason =
  | { kind: 'interrupted'; signal: 'SIGINT' | 'SIGTERM' }
  | { kind: 'aborted'; reason: string }
  | { kind: 'budget'; reason: string };

/** A unit that was cut short by a stop: it is not recorded, so a resume runs it again. */
export class UnitCancelledError extends Error {
  constructor(reason: string) {
    super(`unit cancelled: ${reason}`);
    this.name = 'UnitCancelledError';
  }
}

/** Settings of `createRunControl`. */
export interface RunControlSettings {
  /** Ctrl+C / SIGTERM from the CLI (its reason is a `StopReason` of kind `interrupted`). */
  external?: AbortSignal;
  maxConsecutiveErrors: number;
  maxErrorRate: number;
  /** Units in flight (`-j`): the consecutive failed attempts that trip the breaker are `maxConsecutiveErrors` × max(4, this). */
  concurrency?: number;
  /** Injected for tests: the breaker's clock and timer (pipeline/models/circuit-breaker.ts). */
  breakerClock?: Pick<CircuitBreakerSettings, 'now' | 'schedule'>;
  progress: Pick<ProgressSettings, 'write' | 'style' | 'now'>;
  /**
   * Prices the replies of this invocation's units (the proxy's cost, else usage × price, as the manifest's `usage`
   * does); absent: spend is not shown.
   */
  priceOf?: PriceLookup;
}

/** What the phases report after each unit. */
export interface UnitOutcome {
  status: 'ok' | 'error' | 'not-applicable';
  /** Replies of the unit, with their model (for cache hits and spend). */
  replies: readonly { model: string; reply: DecisionResponse; reused?: boolean }[];
  parseFailures: number;
  error?: string;
  /** The unit's second run (the end-of-run retry of a unit that failed in this invocation). */
  retried?: boolean;
}

/**
 * Creates the control of one invocation. `signal` stops scheduling when the CLI is interrupted, the breaker trips
 * (status `aborted`) or the budget cannot cover the next call (status `budget`); `callSignal` aborts calls in flight
 * on the first two only.
 *
 * @example
 * const control = createRunControl({ external: cliSignal, maxConsecutiveErrors: 5, maxErrorRate: 0, progress: { write, style: 'lines' } });
 * control.begin(total, alreadyDone); control.unitFinished(outcome); control.finish();
 */
export function createRunControl(settings: RunControlSettings) {
  const controller = new AbortController();
  const calls = new AbortController();
  let stop: StopReason | null = null;
  // Every stop ends scheduling; only an interrupt or the breaker cuts calls in flight. A budget stop lets the calls
  // already sent finish and be recorded: they are paid for, and cutting them would count money for nothing.
  const stopWith = (reason: StopReason) => {
    if (reason.kind !== 'budget' && !calls.signal.aborted) calls.abort(reason);
    if (stop) return;
    stop = reason;
    controller.abort(reason);
  };
  if (settings.external) {
    const onExternal = () =>
      stopWith(
        (settings.external!.reason as StopReason | undefined)?.kind === 'interrupted'
          ? (settings.external!.reason as StopReason)
          : { kind: 'interrupted', signal: 'SIGINT' },
      );
    if (settings.external.aborted) onExternal();
    else settings.external.addEventListener('abort', onExternal, { once: true });
  }
  const breaker = createCircuitBreaker({
    maxConsecutive: settings.maxConsecutiveErrors,
    maxErrorRate: settings.maxErrorRate,
    maxConsecutiveAttempts: settings.maxConsecutiveErrors * Math.max(4, settings.concurrency ?? 1),
    ...settings.breakerClock,
    onTrip: (trip) => stopWith({ kind: 'aborted', reason: trip.reason }),
  });
  const progress = createProgress(settings.progress);
  const counts = {
    done: 0,
    total: 0,
    ran: 0,
    errors: 0,
    parseFailures: 0,
    cacheHits: 0,
    calls: 0,
    costUsd: settings.priceOf ? (0 as number | null) : null,
  };
  // What this invocation's recorded units sent and spent, per model: the live line, and this invocation's share of
  // the final lines.
  const invocation = createUsageTally(settings.priceOf ?? (() => null));
  return {
    /** Aborted by every stop: no unit starts after it. */
    signal: controller.signal,
    /** Aborted by an interrupt or the breaker (not by the budget): what decision calls in flight listen to. */
    callSignal: calls.signal,
    get stopped(): StopReason | null {
      return stop;
    },
    /** Stops the run for a budget that cannot cover the next call (that unit is not recorded; calls in flight finish). */
    budgetExhausted(error: BudgetExhaustedError): void {
      stopWith({ kind: 'budget', reason: error.message });
    },
    /**
     * A provider attempt is sent (every decision-model attempt, pipeline/models/openai-decision-model.ts); call the returned
     * function with how it ended. The breaker counts failed attempts across units: a dead endpoint stops the run
     * within its failing window plus one request timeout, in-flight calls aborted.
     */
    attemptStarted(): (result: AttemptResult) => void {
      const end = breaker.attemptStarted();
      return (result) => {
        const trip = end(result);
        if (trip) stopWith({ kind: 'aborted', reason: trip.reason });
      };
    },
    /** The phase starts (its rate counts from here): its unit count (units already recorded count as done). */
    begin(total: number, alreadyDone: number): void {
      progress.begin();
      counts.total = total;
      counts.done = alreadyDone;
      progress.update({ ...counts });
    },
    unitFinished(outcome: UnitOutcome): void {
      // A retried unit was counted (as an error) when it first failed: it is done once, an error only if it failed again.
      if (outcome.retried) {
        if (outcome.status !== 'error') counts.errors -= 1;
      } else {
        counts.done += 1;
        counts.ran += 1;
        if (outcome.status === 'error') counts.errors += 1;
      }
      counts.parseFailures += outcome.parseFailures;
      for (const recorded of outcome.replies) {
        if (recorded.reused) continue;
        counts.calls += 1;
        if (recorded.reply.cached) counts.cacheHits += 1;
        invocation.add(recorded);
      }
      if (settings.priceOf) counts.costUsd = totalCostUsd(invocation.totals());
      progress.update({ ...counts });
      if (outcome.status === 'not-applicable') return;
      const retried = outcome.retried ? { retried: true } : {};
      const trip = breaker.record(
        outcome.status === 'error'
          ? { failed: true, error: outcome.error ?? 'error', ...retried }
          : { failed: false, ...retried },
      );
      if (trip) stopWith({ kind: 'aborted', reason: trip.reason });
    },
    /** Ends the progress display. */
    finish(): void {
      breaker.close();
      progress.finish({ ...counts });
    },
    /** Spend shown so far (null when a model's cost is unknown). */
    get costUsd(): number | null {
      return counts.costUsd;
    },
    /** Calls, tokens and dollars per model of the units this invocation recorded. */
    invocationUsage(): ModelUsage[] {
      return invocation.totals();
    },
  };
}

/** How a run ended, and the exit code users expect (user-expectations.md §2; issue #12 item 7). */
export interface RunEnding {
  status: 'success' | 'error' | 'cancelled' | 'aborted' | 'budget';
  exitCode: 0 | 1 | 2 | 3 | 4 | 130 | 143;
  /** The one line a non-zero exit ends with (null for exit 0). */
  why: string | null;
}

/** How many failed units the last line names before it says how many more there are. */
const NAMED_FAILURES = 10;

/**
 * The ending of a run from its counts and its stop: 130/143 interrupted (`cancelled`), 3 budget, 2 aborted by the
 * breaker, errors above `--max-error-rate`, or every completed reply unparseable; 1 zero units; 4 completed with
 * failed units within `--max-error-rate` (named); 0 otherwise.
 */
export function runEnding(input: {
  units: number;
  errored: number;
  /** The ids of the failed units (and failed setup probes), for the last line of exit 4. */
  failedUnits?: readonly string[];
  completed: number;
  unparseable: number;
  maxErrorRate: number;
  stop: StopReason | null;
}): RunEnding {
  const { stop } = input;
  if (stop?.kind === 'interrupted')
    return {
      status: 'cancelled',
      exitCode: stop.signal === 'SIGTERM' ? 143 : 130,
      why: `interrupted (${stop.signal}): units in flight were stopped and are not recorded`,
    };
  if (stop?.kind === 'budget') return { status: 'budget', exitCode: 3, why: stop.reason };
  if (stop?.kind === 'aborted')
    return { status: 'aborted', exitCode: 2, why: `stopped by the circuit breaker: ${stop.reason}` };
  if (input.units === 0)
    return { status: 'success', exitCode: 1, why: 'zero units to run: every requested cell is n/a or failed in setup' };
  const errorRate = input.errored / input.units;
  if (errorRate > input.maxErrorRate)
    return {
      status: 'error',
      exitCode: 2,
      why: `${input.errored}/${input.units} units errored > --max-error-rate ${input.maxErrorRate}`,
    };
  if (input.completed > 0 && input.unparseable === input.completed)
    return {
      status: 'error',
      exitCode: 2,
      why: `every completed reply was unparseable (${input.unparseable}/${input.completed}): no decision could be scored`,
    };
  if (input.errored > 0) {
    const names = input.failedUnits ?? [];
    const more = names.length > NAMED_FAILURES ? `, and ${names.length - NAMED_FAILURES} more` : '';
    return {
      status: 'success',
      exitCode: 4,
      why: `completed with ${input.errored}/${input.units} units failed (within --max-error-rate ${input.maxErrorRate}; endpoint failures were retried once at the end of the run; counted in the errors column; --retry-errors runs them again): ${names.slice(0, NAMED_FAILURES).join(', ')}${more}`,
    };
  }
  return { status: 'success', exitCode: 0, why: null };
}
