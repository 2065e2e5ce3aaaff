// The attempt relay: decision models are built before the run's control exists; they report each provider attempt
// here, and the control (its circuit breaker) listens once it is created.
import type { AttemptResult } from '#core/retry-policy.js';

/** Where a model reports its provider attempts: `started()` when one is sent, the returned function when it ended. */
export interface AttemptObserver {
  started(): (result: AttemptResult) => void;
}

/**
 * Creates a relay: an observer for the models, and `listen` for the control. Attempts before `listen` are not counted.
 *
 * @example
 * const relay = createAttemptRelay(); createOpenAIDecisionModel({ ..., attempts: relay });
 * relay.listen(control); // control.attemptStarted() from then on
 */
export function createAttemptRelay() {
  let listener: { attemptStarted(): (result: AttemptResult) => void } | null = null;
  return {
    started(): (result: AttemptResult) => void {
      return listener?.attemptStarted() ?? (() => {});
    },
    /** Every attempt sent from now on is reported to `target`. */
    listen(target: { attemptStarted(): (result: AttemptResult) => void }): void {
      listener = target;
    },
  };
}
