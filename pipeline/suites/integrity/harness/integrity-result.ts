// The at-rest integrity result model (types only): cells, controls, metric, report (integrity.md §4, §5, §7).
import type { TargetDescription } from '../targets/integrity-target.js';

/** The nine edits of integrity.md §3. */
export type EditId = 'T1' | 'T2' | 'T3' | 'T4' | 'T5' | 'T6' | 'T7' | 'T8' | 'T9';

/** A requested edit: one of the nine, optionally a named variant (`T8:unrevoke`). */
export interface EditSelection {
  edit: EditId;
  /** Null for the edit as the method defines it; `unrevoke` for the T8 variant that clears revocation fields. */
  variant: 'unrevoke' | null;
}

/**
 * A cell's verdict (integrity.md §5). `accepted` fails; `rejected` and `reported` pass (audit-time `reported` is
 * partial); `n/a` is excluded from N with its reason (§6); `not-evaluable` (a control C1/C2 failed, a capability is
 * missing, the store cannot be installed) and `error` (the edit did not land: C3, or the adapter failed mid-edit)
 * are excluded and never passes.
 */
export type Verdict = 'accepted' | 'rejected' | 'reported' | 'n/a' | 'not-evaluable' | 'error';

/** One control case on one cell; `ok: null` = not reached (an earlier step stopped the cell). */
export interface ControlResult {
  ok: boolean | null;
  /** What was checked and what was seen. */
  detail: string;
}

/** One cell: one edit on one fresh store of one target. */
export interface CellResult {
  /** `T1` … `T9`. */
  edit: EditId;
  /** Null, or the named variant (`unrevoke`). */
  variant: string | null;
  /** The attack and its version, e.g. `T6@v1` or `T8:unrevoke@v1`; changes whenever the edit's procedure changes. */
  attack: string;
  verdict: Verdict;
  /** `read` or `audit` for rejected/reported; null otherwise. */
  detection: 'read' | 'audit' | null;
  /** The target's own reason for rejected/reported; why for n/a, not-evaluable, error; null for accepted. */
  reason: string | null;
  /** C1 (no-edit restart), C2 (read-back and context baseline), C3 (the edit landed exactly). */
  controls: { c1: ControlResult; c2: ControlResult; c3: ControlResult };
  /** Which form was used where the method allows two (T2 head moved or none; T3 repointed or plain). */
  form: string | null;
  /** What the read served, as information only (never used for the verdict). */
  observation: string | null;
  /** The exact raw commands of the edit, in order. */
  commands: string[];
  /**
   * True when the system was stopped during the edit (the method's `restarted` position); false in the `alive`
   * position, where the session stayed up across it (`TargetDescription.position`).
   */
  stoppedDuringEdit: boolean;
  /** Wall time of the cell. */
  durationMs: number;
}

/** A pass rate over a group of edits; `value` null when a cell of the group has no verdict. */
export interface Rate {
  value: number | null;
  /** Applicable cells of the group. */
  n: number;
}

/** integrity.md §7.1 for one target. */
export interface IntegrityMetric {
  /** (passes + 0.5 · partial) / N over T1–T8; null when it must not be computed (see `reason`). */
  value: number | null;
  /** Why `value` is null: a C1/C2 failure, or cells without a verdict. */
  reason: string | null;
  /** Applicable T1–T8 cells (8 minus n/a). */
  n: number;
  /** REJECTED plus read-time REPORTED among T1–T8. */
  passes: number;
  /** Audit-time REPORTED among T1–T8. */
  partial: number;
  /** ACCEPTED among T1–T8. */
  accepted: number;
  /** T1–T5, tamper evidence. */
  tamperEvidence: Rate;
  /** T6–T8, binding of a record to its place and owner. */
  binding: Rate;
  /** T9's verdict, outside the metric (null when T9 was not run). */
  t9: Verdict | null;
}

/** One target's row. */
export interface TargetResult {
  /** Registry id. */
  id: string;
  /** Exact versions, `name version` joined by `, `. */
  version: string;
  /** Features on/off. */
  config: Record<string, string>;
  /** The full description (label, store, detection point, tooling). */
  description: TargetDescription;
  /** Null when the target ran; else why none of its cells could run (they are `not-evaluable`). */
  unavailable: string | null;
  cells: CellResult[];
  metric: IntegrityMetric;
}

/** The whole measurement (`integrity.json`). */
export interface IntegrityReport {
  /** Version of this file's shape. */
  version: 1;
  /** ISO date-time the measurement started. */
  date: string;
  /** The command line as run. */
  command: string;
  /** Node, platform and the records seeded per context. */
  environment: { node: string; platform: string; recordsPerContext: number };
  targets: TargetResult[];
  /** The exit code the command returned (integrity.md §7.2). */
  exitCode: number;
}
