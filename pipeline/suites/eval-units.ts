// The units of an experiment of `pnpm eval` inside its run (issue #27 item 2): its suite's pending units through the
// unit runner every suite shares (suite-units.ts), under the run's stops (Ctrl+C, the breaker, the budget), redactor,
// progress and error log. The grid, the follow-ups and forged reasoning hand it their plan, their units' setup and how
// a record counts; what surrounds the units (the account, the summary, the manifest) stays theirs.
import { StorageError } from '#core/errors.js';
import { BudgetExhaustedError } from '../run/budget.js';
import type { RunContext } from '../run/run-context.js';
import type { RunParts } from '../run/run-parts.js';
import type { RunSpec } from '../run/run-spec.js';
import type { UnitOutcome } from '../run/run-control.js';
import type { SuiteUnit } from '../run/suite.js';
import { runSuiteUnits, type SuiteOfUnits, type SuiteUnitsResult } from './suite-units.js';

/** What the run's progress and error log read of any eval record. */
interface EvalRecord {
  unitId: string;
  status: string;
  error?: { message?: string } | null | undefined;
}

/** How an eval phase runs its suite's units. */
export interface EvalUnitsOptions<Unit extends SuiteUnit, Record, Setup> {
  /** The plan of this invocation (cut to its shard), in order; iterated more than once, and may be lazy. */
  units: Iterable<Unit>;
  /** What the units share (the run's models, loaded parts, ledger key); built only when a unit is left to run. */
  setup: () => Promise<Setup>;
  /** How a record counts in the run's progress and spend (`gridOutcome`, `followUpOutcome`, ...). */
  outcome: (record: Record) => UnitOutcome;
  /** Units in flight at once (default: `--concurrency`; the grid under `--batch`: a job's worth). */
  concurrency?: number;
  /** Every stored and written record, in order (the grid's output filter keeps the replies it reuses). */
  remember?: (record: Record) => void;
}

/**
 * Runs the pending units of `suite` in `run`'s directory: a unit cut short by a stop, or by a budget that cannot cover
 * its call (the run then stops with status `budget`), is not recorded, while a full disk ends the run; every record is
 * redacted before it is written, counted in the run's progress, and logged when it is an error.
 *
 * @example await runEvalUnits(run, gridSuite, { units, setup, outcome: gridOutcome, remember: replies.remember });
 */
export function runEvalUnits<Unit extends SuiteUnit, Record extends EvalRecord, Setup, Group>(
  run: Pick<RunContext, 'stops' | 'control' | 'log' | 'logError'> & {
    spec: Pick<RunSpec, 'concurrency' | 'retryErrors'>;
    parts: Pick<RunParts, 'runDir'>;
  },
  suite: SuiteOfUnits<Unit, Record, Setup, Group>,
  options: EvalUnitsOptions<Unit, Record, Setup>,
): Promise<SuiteUnitsResult> {
  const { signal, callSignal, onBudget, redact } = run.stops;
  return runSuiteUnits(suite, {
    runDir: run.parts.runDir,
    units: options.units,
    setup: options.setup,
    concurrency: options.concurrency ?? run.spec.concurrency,
    retryErrors: run.spec.retryErrors,
    signal,
    // Decision calls in flight are aborted by Ctrl+C and the breaker, not by the budget (calls sent finish).
    unitSignal: callSignal,
    cancelled: (error) => {
      // A full or read-only disk ends the run with its error, even during a stop.
      if (error instanceof StorageError) return false;
      if (error instanceof BudgetExhaustedError) onBudget(error);
      return error instanceof BudgetExhaustedError || signal.aborted;
    },
    redact,
    log: run.log,
    ...(options.remember ? { remember: options.remember } : {}),
    onStart: run.control.begin,
    onUnit: (record, { retried }) => {
      run.control.unitFinished({ ...options.outcome(record), ...(retried ? { retried } : {}) });
      run.logError(record.unitId, record.status, record.error?.message);
    },
  });
}
