// A suite's units inside an opened run directory (issue #27 item 2): read what is recorded, run the rest stage by stage
// through the unit loop every phase and suite shares, append one chained, redacted line per unit. The registered
// suites' runner (run-suite.ts) and the experiments of `pnpm eval` whose units are a SuiteV1 (forged reasoning) both
// run their units here; what surrounds them (manifest, summary, spend) is theirs.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonLines, sha256 } from '../run-log/json-files.js';
import { openRunLogFile } from '../run-log/run-log-chain.js';
import { redactDeep, type Redactor } from '../run/redact.js';
import type { SuiteUnit, SuiteV1 } from '../run/suite.js';
import { runUnitLoop } from '../run/unit-loop.js';
import { SUITE_RECORDS_FILE, type SuiteRecordLine } from './suite-manifest.js';

/** A suite as its units see it: how they run and where their records go. */
type SuiteOfUnits<Unit extends SuiteUnit, Record, Setup> = Pick<
  SuiteV1<unknown, Unit, Record, unknown, Setup>,
  'id' | 'records' | 'rerun' | 'runUnit'
>;

/** How one invocation runs a suite's pending units. */
export interface SuiteUnitsOptions<Unit extends SuiteUnit, Record, Setup> {
  /** The opened run directory (its lock held by the caller). */
  runDir: string;
  /** The units of this invocation (the plan, cut to the shard and limit), in order. */
  units: readonly Unit[];
  /** Builds what the units share; called once, and only when a unit is left to run. */
  setup: () => Promise<Setup>;
  /** Units in flight at once. */
  concurrency: number;
  /** Runs again a recorded unit the suite's `rerun` names (a recorded error). */
  retryErrors?: boolean;
  /** Once aborted no further unit starts; also what units see unless `unitSignal` is given. */
  signal: AbortSignal;
  /** What units see as their stop (decision calls in flight; `pnpm eval`: Ctrl+C and the breaker, not the budget). */
  unitSignal?: AbortSignal;
  /** Errors that mean "cut short by a stop, not recorded" besides UnitCancelledError (a budget error). */
  cancelled?: (error: unknown) => boolean;
  /** Every line is redacted before it is written; the records returned are what was written. */
  redact: Redactor;
  /** Progress lines. */
  log: (line: string) => void;
  /** Once the units are known: how many there are, how many are recorded already. */
  onStart?: (total: number, alreadyDone: number) => void;
  /** A unit's record was appended (as written). */
  onUnit?: (record: Record, progress: { done: number; total: number }) => void;
}

/** What the units of an invocation left: every unit's record as stored, and how many ran or were found done. */
export interface SuiteUnitsResult<Record> {
  /** Unit id → its last stored record (of every unit recorded in the directory, this invocation's or not). */
  records: Map<string, Record>;
  ran: number;
  skippedAsDone: number;
}

/**
 * The records stored in `runDir` for `suite`, by unit id (the last line of a unit wins): the runner's
 * `{unit, cell, record}` lines in `records.jsonl`, or the suite's own file when it declares `records`.
 *
 * @example const done = readSuiteRecords(integritySuite, runDir).has('reference/T6');
 */
export function readSuiteRecords<Record>(
  suite: Pick<SuiteV1<unknown, SuiteUnit, Record, unknown, unknown>, 'records'>,
  runDir: string,
): Map<string, Record> {
  const own = suite.records;
  if (own)
    return new Map(readJsonLines<Record>(join(runDir, own.file)).rows.map((record) => [own.unitOf(record), record]));
  return new Map(
    readJsonLines<SuiteRecordLine>(join(runDir, SUITE_RECORDS_FILE)).rows.map((row) => [
      row.unit,
      row.record as Record,
    ]),
  );
}

/**
 * Runs the units of `options.units` not yet recorded (or recorded as an error the suite reruns, with `retryErrors`),
 * stage by stage, `concurrency` at a time, appending each unit's redacted line as it finishes. A unit cut short by a
 * stop is not recorded; any other throw ends the run once the running units have settled (runUnitLoop).
 *
 * @example const { records } = await runSuiteUnits(suite, { runDir, units, setup, concurrency: 1, signal, redact, log });
 */
export async function runSuiteUnits<Unit extends SuiteUnit, Record, Setup>(
  suite: SuiteOfUnits<Unit, Record, Setup>,
  options: SuiteUnitsOptions<Unit, Record, Setup>,
): Promise<SuiteUnitsResult<Record>> {
  const { runDir, units, signal, redact, log } = options;
  const records = readSuiteRecords(suite, runDir);
  const pending = (unit: Unit) => {
    const previous = records.get(unit.id);
    return previous === undefined || (options.retryErrors === true && (suite.rerun?.(previous) ?? false));
  };
  const todo = units.filter(pending);
  const skippedAsDone = units.length - todo.length;
  options.onStart?.(units.length, skippedAsDone);
  if (todo.length === 0) return { records, ran: 0, skippedAsDone };
  const setup = await options.setup();
  const file = openRunLogFile(runDir, suite.records?.file ?? SUITE_RECORDS_FILE, redact);
  const workDirOf = (unit: Unit) => join(runDir, 'work', sha256(unit.id).slice(0, 12));
  const unitSignal = options.unitSignal ?? signal;
  let ran = 0;
  const stages = [...new Set(todo.map((unit) => unit.stage ?? 0))].sort((a, b) => a - b);
  for (const stage of stages)
    await runUnitLoop({
      units: todo.filter((unit) => (unit.stage ?? 0) === stage),
      concurrency: options.concurrency,
      signal,
      ...(options.cancelled ? { cancelled: options.cancelled } : {}),
      run: (unit) => {
        const dir = workDirOf(unit);
        return suite.runUnit(unit, {
          setup,
          signal: unitSignal,
          progress: log,
          // Made when a unit first asks for it: most units never do.
          get workDir() {
            mkdirSync(dir, { recursive: true });
            return dir;
          },
        });
      },
      append: (record, unit) => {
        const stored: object = suite.records
          ? redactDeep(record as object, redact)
          : redactDeep<SuiteRecordLine>({ unit: unit.id, cell: unit.cell, record }, redact);
        file.append(stored);
        const written = suite.records ? (stored as Record) : ((stored as SuiteRecordLine).record as Record);
        records.set(unit.id, written);
        rmSync(workDirOf(unit), { recursive: true, force: true });
        ran += 1;
        options.onUnit?.(written, { done: skippedAsDone + ran, total: units.length });
      },
    });
  if (ran === todo.length) rmSync(join(runDir, 'work'), { recursive: true, force: true });
  return { records, ran, skippedAsDone };
}
