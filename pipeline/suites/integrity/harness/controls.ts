// Controls C1 and C2 (integrity.md §4) and the verdict after an edit (§5): only the target's own read path and audit decide.
import { HarnessFaultError } from '../targets/harness-fault.js';
import type { ContextName, ReadOutcome, TargetSession, TargetStore } from '../targets/integrity-target.js';
import type { ControlResult, Verdict } from './integrity-result.js';
import { DISTINCTIVE_FACT } from './seed-plan.js';

/** The verdict part of a cell. */
export interface Observed {
  verdict: Extract<Verdict, 'accepted' | 'rejected' | 'reported'>;
  detection: 'read' | 'audit' | null;
  reason: string | null;
  /** What was served, for the report only. */
  observation: string | null;
}

/** `Name: message` of anything thrown, so a deliberate refusal can be told from a crash; capped at 600 characters. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : `thrown value: ${String(error)}`;
  return text.length > 600 ? `${text.slice(0, 597)}...` : text;
}

const holds = (texts: readonly string[], context: ContextName): boolean =>
  texts.some((text) => text.includes(DISTINCTIVE_FACT[context]));

/** Reads a context; a throw becomes `refused` with the error as its reason, unless it is the harness's own fault. */
async function readSafely(session: TargetSession, context: ContextName): Promise<ReadOutcome> {
  try {
    return await session.read(context);
  } catch (error) {
    if (error instanceof HarnessFaultError) throw error;
    return { status: 'refused', reason: describeError(error) };
  }
}

/**
 * C2 (project decision, integrity.md §4): before any edit, A's read path serves FA and not FB, and B's serves FB
 * and not FA. With one context, only A's read-back is checked, and the detail says so.
 */
export async function checkBaseline(session: TargetSession, contexts: 1 | 2): Promise<ControlResult> {
  const names: ContextName[] = contexts === 2 ? ['A', 'B'] : ['A'];
  for (const context of names) {
    const outcome = await readSafely(session, context);
    if (outcome.status !== 'served')
      return {
        ok: false,
        detail: `context ${context}'s read did not serve its records before any edit: ${outcome.reason}`,
      };
    if (!holds(outcome.texts, context))
      return {
        ok: false,
        detail: `context ${context}'s read did not serve F${context} (${outcome.texts.length} records served)`,
      };
    const other: ContextName = context === 'A' ? 'B' : 'A';
    if (contexts === 2 && holds(outcome.texts, other))
      return { ok: false, detail: `context ${context}'s read served F${other}: the read path already mixes contexts` };
  }
  return {
    ok: true,
    detail:
      contexts === 2
        ? 'A serves FA and not FB; B serves FB and not FA'
        : 'A serves FA (one context: separation not checked)',
  };
}

/**
 * C1: restart with no edit and read A: the store must open, serve FA without raising, and pass its own audit.
 * Returns the running session on success so the caller can stop it.
 */
export async function checkReopen(
  store: TargetStore,
): Promise<{ control: ControlResult; session: TargetSession | null }> {
  let session: TargetSession;
  try {
    session = await store.start();
  } catch (error) {
    return {
      control: { ok: false, detail: `could not reopen its own untouched store: ${describeError(error)}` },
      session: null,
    };
  }
  const outcome = await readSafely(session, 'A');
  if (outcome.status !== 'served')
    return {
      control: { ok: false, detail: `the untouched store was not served after a restart: ${outcome.reason}` },
      session,
    };
  if (!holds(outcome.texts, 'A'))
    return {
      control: {
        ok: false,
        detail: `after a restart with no edit, FA was not served (${outcome.texts.length} records)`,
      },
      session,
    };
  if (session.audit) {
    const audit = await session
      .audit('A')
      .catch((error: unknown) => ({ ok: false as const, reason: describeError(error) }));
    if (!audit.ok)
      return {
        control: { ok: false, detail: `the untouched store fails its own audit after a restart: ${audit.reason}` },
        session,
      };
  }
  return {
    control: {
      ok: true,
      detail: `restart with no edit served FA (${outcome.texts.length} records)${session.audit ? ' and passed the audit' : ''}`,
    },
    session,
  };
}

/**
 * Restarts on the edited store and classifies what the system itself did: refused to open or to read → REJECTED
 * (read); said so while serving → REPORTED (read); served, then its audit named a problem → REPORTED (audit);
 * otherwise ACCEPTED. `edited` is the content the edit put in place, used only for the observation text.
 */
export async function observeAfterEdit(store: TargetStore, edited: readonly string[]): Promise<Observed> {
  let session: TargetSession;
  try {
    session = await store.start();
  } catch (error) {
    if (error instanceof HarnessFaultError) throw error;
    return {
      verdict: 'rejected',
      detection: 'read',
      reason: `refused to open the store: ${describeError(error)}`,
      observation: null,
    };
  }
  try {
    return await observeSession(session, edited);
  } finally {
    await session.stop();
  }
}

/**
 * The classification of `observeAfterEdit` on a session that is already up: in the `alive` position, the session
 * that stayed up across the edit reads and audits in the same process. The caller stops it.
 */
export async function observeSession(session: TargetSession, edited: readonly string[]): Promise<Observed> {
  const outcome = await readSafely(session, 'A');
  if (outcome.status === 'refused')
    return { verdict: 'rejected', detection: 'read', reason: outcome.reason, observation: null };
  const observation = describeServed(outcome.texts, edited);
  if (outcome.status === 'reported')
    return { verdict: 'reported', detection: 'read', reason: outcome.reason, observation };
  if (session.audit) {
    const audit = await session.audit('A').catch((error: unknown) => {
      if (error instanceof HarnessFaultError) throw error;
      return { ok: false as const, reason: `the audit raised ${describeError(error)}` };
    });
    if (!audit.ok) return { verdict: 'reported', detection: 'audit', reason: audit.reason, observation };
  }
  return { verdict: 'accepted', detection: null, reason: null, observation };
}

function describeServed(texts: readonly string[], edited: readonly string[]): string {
  const shown = edited.filter((text) => texts.includes(text)).length;
  const tail = edited.length === 0 ? '' : `; ${shown} of ${edited.length} edited contents among them`;
  return `served ${texts.length} records${tail}`;
}
