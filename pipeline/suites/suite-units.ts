// A suite's units inside an opened run directory (issue #27 item 2): read what is recorded, run the rest stage by stage
// and group by group (inside what the suite opened for the group) through the unit loop every phase and suite shares,
// append one chained, redacted line per unit. The registered suites' runner (run-suite.ts) and every experiment of
// `pnpm eval` (the grid, forged reasoning, the follow-ups, through eval-units.ts) run their units here; what surrounds
// them (manifest, summary, spend) is theirs.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { forEachJsonLine, sha256 } from '../run-log/json-files.js';
import { openRunLogFile } from '../run-log/run-log-chain.js';
import { redactDeep, type Redactor } from '../run/redact.js';
import type { SuiteGroupV1, SuiteUnit, SuiteV1 } from '../run/suite.js';
import { runUnitLoop } from '../run/unit-loop.js';
import { SUITE_RECORDS_FILE, type SuiteRecordLine } from './suite-manifest.js';

/** A suite as its units see it: how they run, what their groups share, and where their records go. */
export type SuiteOfUnits<Unit extends SuiteUnit, Record, Setup, Group> = Pick<
  SuiteV1<unknown, Unit, Record, unknown, Setup, Group>,
  'id' | 'records' | 'rerun' | 'retryOnce' | 'openGroup' | 'runUnit'
>;

/** How far an invocation is, with each appended record. */
export interface SuiteUnitProgress {
  /** Units recorded, this invocation's and earlier ones' (a retry of this invocation's failure adds none). */
  done: number;
  total: number;
  /** The record is the end-of-invocation retry of a unit this invocation recorded as failed (`retryOnce`). */
  retried: boolean;
}

/** How one invocation runs a suite's pending units. */
export interface SuiteUnitsOptions<Unit extends SuiteUnit, Record, Setup> {
  /** The opened run directory (its lock held by the caller). */
  runDir: string;
  /**
   * The units of this invocation (the plan, cut to the shard and limit), in order. Iterated more than once (to count,
   * then stage by stage), and may be lazy: the grid's units are made as they are pulled and never held at once. A
   * one-shot iterator (a generator object) is refused: its second walk would be empty.
   */
  units: Iterable<Unit>;
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
  /**
   * Every record of the directory in file order, as it is read (a resume) and as it is written (redacted): what a
   * unit that reads another unit's record keeps of it (the grid's output filter reads its `none` reply). The runner
   * itself keeps only which units are recorded.
   */
  remember?: (record: Record) => void;
  /** Once the units are known: how many there are, how many are recorded already. */
  onStart?: (total: number, alreadyDone: number) => void;
  /** A unit's record was appended (as written). */
  onUnit?: (record: Record, progress: SuiteUnitProgress) => void;
}

/** What an invocation did: how many units it had, ran (retries not counted again) and found recorded. */
export interface SuiteUnitsResult {
  total: number;
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
  const records = new Map<string, Record>();
  forEachSuiteRecord(suite, runDir, (id, record) => records.set(id, record));
  return records;
}

/** Each stored record of `suite` in `runDir` with its unit id, in file order, parsed one line at a time. */
function forEachSuiteRecord<Record>(
  suite: Pick<SuiteV1<unknown, SuiteUnit, Record, unknown, unknown>, 'records'>,
  runDir: string,
  onRecord: (id: string, record: Record) => void,
): void {
  const own = suite.records;
  if (own) forEachJsonLine<Record>(join(runDir, own.file), (record) => onRecord(own.unitOf(record), record));
  else
    forEachJsonLine<SuiteRecordLine>(join(runDir, SUITE_RECORDS_FILE), (row) =>
      onRecord(row.unit, row.record as Record),
    );
}

/**
 * Runs the units of `options.units` not yet recorded (or recorded as an error the suite reruns, with `retryErrors`),
 * stage by stage, then group by group in the order groups first appear (each opened by the suite's `openGroup` before
 * its first unit and closed after its last, also on a failure; none opened after a stop), `concurrency` at a time (or
 * the group's), appending each unit's redacted line as it finishes. A unit whose record the suite's `retryOnce` names
 * (a transient endpoint failure) runs once more after every stage, its new line superseding the first. A unit cut
 * short by a stop is not recorded; any other throw ends the run once the running units have settled (runUnitLoop).
 * What is recorded is read back with {@link readSuiteRecords}; the runner holds only the ids.
 *
 * @example const { ran } = await runSuiteUnits(suite, { runDir, units, setup, concurrency: 1, signal, redact, log });
 */
export async function runSuiteUnits<Unit extends SuiteUnit, Record, Setup, Group = undefined>(
  suite: SuiteOfUnits<Unit, Record, Setup, Group>,
  options: SuiteUnitsOptions<Unit, Record, Setup>,
): Promise<SuiteUnitsResult> {
  const { runDir, units, signal, redact, log } = options;
  // The plan is walked once to count and once per stage: an iterator (a generator object) would be empty on the second
  // walk, and its units would silently not run.
  if (typeof (units as { next?: unknown }).next === 'function' || (units[Symbol.iterator]() as unknown) === units)
    throw new Error(
      `suite ${suite.id}: its units are a one-shot iterator; give an array or an iterable whose every walk starts afresh`,
    );
  // Unit id → whether its last record (when the invocation began) is one `--retry-errors` runs again. What this
  // invocation records is not added: a unit pending at the start stays pending for every stage and pass.
  const recorded = new Map<string, boolean>();
  forEachSuiteRecord(suite, runDir, (id, record) => {
    recorded.set(id, suite.rerun?.(record) ?? false);
    options.remember?.(record);
  });
  const retryErrors = options.retryErrors === true;
  const isPending = (unit: Unit) => {
    const rerun = recorded.get(unit.id);
    return rerun === undefined || (retryErrors && rerun);
  };
  let total = 0;
  let pending = 0;
  const stages = new Map<number, (string | undefined)[]>();
  for (const unit of units) {
    total += 1;
    if (!isPending(unit)) continue;
    pending += 1;
    const stage = unit.stage ?? 0;
    const groups = stages.get(stage) ?? [];
    if (!groups.includes(unit.group)) groups.push(unit.group);
    stages.set(stage, groups);
  }
  const skippedAsDone = total - pending;
  options.onStart?.(total, skippedAsDone);
  if (pending === 0) return { total, ran: 0, skippedAsDone };
  const setup = await options.setup();
  const file = openRunLogFile(runDir, suite.records?.file ?? SUITE_RECORDS_FILE, redact);
  const unitSignal = options.unitSignal ?? signal;
  let ran = 0;
  // The units in flight that asked for a scratch directory (removed with their record).
  const scratch = new Set<string>();
  const scratchDir = (unit: Unit) => join(runDir, 'work', sha256(unit.id).slice(0, 12));
  // Units this invocation recorded as failed in a way the suite retries once, in order (only failures are held).
  const retries: Unit[] = [];
  const append = (record: Record, unit: Unit, retried: boolean) => {
    const stored: object = suite.records
      ? redactDeep(record as object, redact)
      : redactDeep<SuiteRecordLine>({ unit: unit.id, cell: unit.cell, record }, redact);
    file.append(stored);
    const written = suite.records ? (stored as Record) : ((stored as SuiteRecordLine).record as Record);
    options.remember?.(written);
    if (!retried) {
      ran += 1;
      if (suite.retryOnce?.(written)) retries.push(unit);
    }
    options.onUnit?.(written, { done: skippedAsDone + ran, total, retried });
  };
  // The units of one group (or of none), through the unit loop, inside what the group shares.
  const runBatch = async (batch: Iterable<Unit>, group: SuiteGroupV1<Group> | null, retried: boolean) => {
    await runUnitLoop({
      units: batch,
      concurrency: group?.concurrency ?? options.concurrency,
      signal,
      ...(options.cancelled ? { cancelled: options.cancelled } : {}),
      run: (unit) => {
        const work = () =>
          suite.runUnit(unit, {
            setup,
            group: group?.shared as Group,
            signal: unitSignal,
            progress: log,
            // Made when a unit first asks for it (most units never do), and removed once its record is written.
            get workDir() {
              const dir = scratchDir(unit);
              mkdirSync(dir, { recursive: true });
              scratch.add(unit.id);
              return dir;
            },
          });
        return group?.run ? group.run(unit, work) : work();
      },
      append: (record, unit) => {
        append(record, unit, retried);
        if (scratch.delete(unit.id)) rmSync(scratchDir(unit), { recursive: true, force: true });
      },
    });
  };
  // One pass over `chosen` units: stage by stage, group by group.
  const pass = async (chosen: (unit: Unit) => boolean, retried: boolean) => {
    for (const [stage, groups] of [...stages].sort(([a], [b]) => a - b))
      for (const name of groups) {
        // A stop before a group opens leaves it closed: nothing of it would run.
        if (signal.aborted) return;
        const batch = () => filter(units, (unit) => (unit.stage ?? 0) === stage && unit.group === name && chosen(unit));
        if (name === undefined) {
          await runBatch(batch(), null, retried);
          continue;
        }
        const members = [...batch()];
        if (members.length === 0) continue;
        if (!suite.openGroup)
          throw new Error(
            `suite ${suite.id}: unit ${members[0]!.id} names group ${name}, and the suite opens no group`,
          );
        const group = await suite.openGroup(name, members, setup);
        try {
          await runBatch(members, group, retried);
        } finally {
          await group.close();
        }
      }
  };
  await pass(isPending, false);
  if (retries.length > 0) {
    const again = new Set(retries.map((unit) => unit.id));
    await pass((unit) => again.has(unit.id), true);
  }
  if (ran === pending) rmSync(join(runDir, 'work'), { recursive: true, force: true });
  return { total, ran, skippedAsDone };
}

function* filter<T>(items: Iterable<T>, keep: (item: T) => boolean): Generator<T> {
  for (const item of items) if (keep(item)) yield item;
}
