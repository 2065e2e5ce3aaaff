// One cell of integrity.md §2.3: fresh store, seed, C2, stop, C1, stop, one edit, C3, restart, read, verdict; in the
// alive position the session of C1 stays up across the edit and reads and audits in the same process.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  IntegrityTarget,
  TargetDescription,
  TargetPosition,
  TargetSession,
  TargetStore,
} from '../targets/integrity-target.js';
import { checkBaseline, checkReopen, describeError, observeAfterEdit, observeSession } from './controls.js';
import { applyEdit, attackId, MissingCapabilityError, positions, type RawLists } from './edits.js';
import type { CellResult, ControlResult, EditSelection, Verdict } from './integrity-result.js';
import { checkLanded, checkRestored } from './landed-check.js';
import { laterRecord, RECORDS_PER_CONTEXT, seedRecords } from './seed-plan.js';

const NOT_REACHED: ControlResult = { ok: null, detail: 'not reached' };
const UNORDERED_EDITS = new Set(['T2', 'T4', 'T8']);

/** Options of one cell. */
export interface CellOptions {
  /** Parent of the cell's scratch directory (default: the OS temp directory). */
  scratchDir?: string;
  /** Keep the scratch directory for inspection. */
  keep?: boolean;
}

type Partial = Pick<CellResult, 'verdict' | 'detection' | 'reason' | 'form' | 'observation'> & {
  controls: CellResult['controls'];
};

/** A cell that was never run: `n/a` by §6, or `not-evaluable` when the target cannot run here. */
export function skippedCell(
  selection: EditSelection,
  verdict: Extract<Verdict, 'n/a' | 'not-evaluable'>,
  reason: string,
  position: TargetPosition = 'restarted',
): CellResult {
  return {
    edit: selection.edit,
    variant: selection.variant,
    attack: attackId(selection),
    verdict,
    detection: null,
    reason,
    controls: { c1: NOT_REACHED, c2: NOT_REACHED, c3: NOT_REACHED },
    form: null,
    observation: null,
    commands: [],
    stoppedDuringEdit: position !== 'alive',
    durationMs: 0,
  };
}

/** The §6 rule: an unordered key-value store without a metadata layer cannot express T2, T4 or T8. */
function notApplicable(selection: EditSelection, description: TargetDescription): string | null {
  if (!description.unordered || !UNORDERED_EDITS.has(selection.edit)) return null;
  return `not applicable (integrity.md §6): ${description.unordered}`;
}

/** A capability the description already rules out: the cell is not evaluable before any store is made. */
function capabilityGap(selection: EditSelection, description: TargetDescription): string | null {
  if (selection.variant === 'unrevoke' && !description.revocationFields?.length)
    return 'not evaluable: the store declares no revocation fields to clear';
  if (selection.edit === 'T6' && description.contexts < 2)
    return 'not evaluable: the store exposes one context, so there is no donor from another';
  return null;
}

const listAll = async (store: TargetStore): Promise<RawLists> => ({
  A: await store.raw.list('A'),
  B: await store.raw.list('B'),
});

/**
 * Runs one cell on a fresh store and never throws: every failure becomes `not-evaluable` (C1, C2, a missing
 * capability) or `error` (C3, or the adapter failing during the edit), with its reason.
 */
export async function runCell(
  target: IntegrityTarget,
  description: TargetDescription,
  selection: EditSelection,
  options: CellOptions = {},
): Promise<CellResult> {
  const started = Date.now();
  const commands: string[] = [];
  const inapplicable = notApplicable(selection, description);
  if (inapplicable) return skippedCell(selection, 'n/a', inapplicable, description.position);
  const gap = capabilityGap(selection, description);
  if (gap) return skippedCell(selection, 'not-evaluable', gap, description.position);
  const dir = await mkdtemp(
    join(options.scratchDir ?? tmpdir(), `integrity-${target.id.replace(/[^a-z0-9]+/gi, '-')}-`),
  );
  // Unique across processes too: cells of two concurrent runs may share a server (Neo4j group ids).
  const cellId =
    `${target.id}-${selection.edit}${selection.variant ? `-${selection.variant}` : ''}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`.replace(
      /[^a-zA-Z0-9_-]/g,
      '_',
    );
  let store: TargetStore | null = null;
  let result: Partial;
  try {
    store = await target.createStore({ dir, cellId, log: (command) => commands.push(command) });
    result = await runSteps(store, description, selection);
  } catch (error) {
    result = {
      verdict: 'error',
      detection: null,
      reason: `the harness or adapter failed: ${describeError(error)}`,
      form: null,
      observation: null,
      controls: { c1: NOT_REACHED, c2: NOT_REACHED, c3: NOT_REACHED },
    };
  } finally {
    await store?.dispose().catch(() => undefined);
    if (!options.keep) await rm(dir, { recursive: true, force: true });
  }
  return {
    edit: selection.edit,
    variant: selection.variant,
    attack: attackId(selection),
    ...result,
    commands,
    stoppedDuringEdit: description.position !== 'alive',
    durationMs: Date.now() - started,
  };
}

async function stopQuietly(session: TargetSession | null): Promise<void> {
  await session?.stop();
}

async function runSteps(
  store: TargetStore,
  description: TargetDescription,
  selection: EditSelection,
): Promise<Partial> {
  const controls: Partial['controls'] = { c1: NOT_REACHED, c2: NOT_REACHED, c3: NOT_REACHED };
  const unevaluable = (reason: string): Partial => ({
    verdict: 'not-evaluable',
    detection: null,
    reason,
    form: null,
    observation: null,
    controls,
  });
  const revokedIndex = selection.variant === 'unrevoke' ? Math.floor(RECORDS_PER_CONTEXT / 2) : undefined;
  let session: TargetSession | null;
  try {
    session = await store.start();
  } catch (error) {
    return unevaluable(`the system did not start on a fresh store: ${describeError(error)}`);
  }
  try {
    await session.seed('A', seedRecords('A', RECORDS_PER_CONTEXT, revokedIndex));
    if (description.contexts === 2) await session.seed('B', seedRecords('B'));
    controls.c2 = await checkBaseline(session, description.contexts);
  } catch (error) {
    controls.c2 = { ok: false, detail: `seeding through the system's own write path failed: ${describeError(error)}` };
  } finally {
    await stopQuietly(session);
  }
  if (!controls.c2.ok) return unevaluable(`C2 failed: ${controls.c2.detail}`);
  const reopened = await checkReopen(store);
  controls.c1 = reopened.control;
  session = reopened.session;
  if (!controls.c1.ok) {
    await stopQuietly(session);
    return unevaluable(`C1 failed: ${controls.c1.detail}`);
  }
  const running = session as TargetSession;
  if (description.position === 'alive') {
    // The §2.3 MAY: the session that passed C1 stays up across the edit; C3 lists the medium under it.
    try {
      return selection.edit === 'T9'
        ? await rollBackSnapshot(store, controls, running)
        : await editAndObserve(store, description, selection, controls, running);
    } finally {
      await running.stop();
    }
  }
  await running.stop();
  if (selection.edit === 'T9') return rollBackSnapshot(store, controls, null);
  return editAndObserve(store, description, selection, controls, null);
}

/**
 * One of T1–T8 with raw access, C3, then the verdict: from a restart (`running` null) or from the session that stayed
 * up across the edit.
 */
async function editAndObserve(
  store: TargetStore,
  description: TargetDescription,
  selection: EditSelection,
  controls: Partial['controls'],
  running: TargetSession | null,
): Promise<Partial> {
  const before = await listAll(store);
  let applied;
  try {
    positions(before.A);
    applied = await applyEdit(selection, store.raw, before, description);
  } catch (error) {
    if (error instanceof MissingCapabilityError)
      return {
        verdict: 'not-evaluable',
        detection: null,
        reason: `not evaluable: ${error.message}`,
        form: null,
        observation: null,
        controls,
      };
    return {
      verdict: 'error',
      detection: null,
      reason: `the edit could not be run: ${describeError(error)}`,
      form: null,
      observation: null,
      controls,
    };
  }
  const after = await listAll(store);
  controls.c3 = checkLanded(before, after, applied.expectation);
  if (!controls.c3.ok)
    return {
      verdict: 'error',
      detection: null,
      reason: `C3 failed: ${controls.c3.detail}`,
      form: applied.form,
      observation: null,
      controls,
    };
  const previous = new Map(before.A.map((record) => [record.slot, record.body]));
  const edited = after.A.filter((record) => previous.get(record.slot) !== record.body).map((record) => record.text);
  const observed = running ? await observeSession(running, edited) : await observeAfterEdit(store, edited);
  return { ...observed, form: applied.form, controls };
}

/**
 * T9: snapshot the whole stopped store, write one more genuine record, stop, restore the older copy, restart, read.
 * With `running` (the alive position) the copy, the write, the restore and the read all happen under that session.
 */
async function rollBackSnapshot(
  store: TargetStore,
  controls: Partial['controls'],
  running: TargetSession | null,
): Promise<Partial> {
  if (!store.raw.snapshot)
    return {
      verdict: 'not-evaluable',
      detection: null,
      reason: 'not evaluable: the adapter has no snapshot hook',
      form: null,
      observation: null,
      controls,
    };
  const snapshotLists = await listAll(store);
  const snapshot = await store.raw.snapshot();
  const later = laterRecord('A');
  if (running) await running.seed('A', [later]);
  else {
    const session = await store.start();
    try {
      await session.seed('A', [later]);
    } finally {
      await session.stop();
    }
  }
  const beforeRestore = await listAll(store);
  await snapshot.restore();
  const after = await listAll(store);
  controls.c3 = checkRestored(snapshotLists, beforeRestore, after);
  if (!controls.c3.ok)
    return {
      verdict: 'error',
      detection: null,
      reason: `C3 failed: ${controls.c3.detail}`,
      form: null,
      observation: null,
      controls,
    };
  return {
    ...(running ? await observeSession(running, []) : await observeAfterEdit(store, [])),
    form: 'whole store restored to the copy taken before one more genuine write',
    controls,
  };
}
