// The at-rest integrity target contract (types only), integrity.md §7.4: lifecycle, raw access, optional hooks,
// declared detection point. The harness (pipeline/suites/integrity/harness/) drives it; each target is one adapter file.

/** The two isolated contexts of integrity.md §2.2 (users, threads, sessions, ledgers — whatever the store has). */
export type ContextName = 'A' | 'B';

import type { JsonValue } from '../../../../backends/store-tools/canonical-json.js';

/** A JSON value as the raw reader returns it (defined beside the canonical encoding in backends/store-tools/). */
export type { JsonValue };

/** One record to write through the target's own write path. */
export interface SeedRecord {
  /** The content the read path should give back. */
  text: string;
  /** Labels the write path stores with the record where it accepts any (`{source: 'web'}`). */
  labels: Readonly<Record<string, string>>;
  /** Write it revoked with the system's own revocation primitive (used by the `T8:unrevoke` variant only). */
  revoked?: boolean;
}

/**
 * One record as the medium holds it, read with generic tooling (SQL, Cypher, file bytes), never the target's code.
 * C3 compares these before and after every edit.
 */
export interface RawRecord {
  /** Identity: the id, key or sequence slot; unique in the store and kept by every edit except deletion. */
  slot: string;
  /** The owning context as the store encodes it (user id, thread id, group id, file). */
  owner: string;
  /** The store's own order key within the context (sequence, ordinal, sortable id); ascending = older first. */
  position: number | string;
  /** The parent/previous link where the store keeps one as plain data (LangGraph `parent_checkpoint_id`). */
  parent?: string | null;
  /** The content as readable text (for C3's "content changed" and for reports). */
  text: string;
  /** Canonical encoding of everything that moves with the record (content, labels, tags, vectors), not slot/owner/position. */
  body: string;
  /** Metadata labels (owner-independent): source, role, timestamps, revocation fields. */
  labels: Record<string, JsonValue>;
}

/** What the target's own read path did. Detection is never inferred from the content (integrity.md §5). */
export type ReadOutcome =
  | { status: 'served'; texts: string[] }
  | { status: 'refused'; reason: string }
  | { status: 'reported'; reason: string; texts: string[] };

/** What a separate audit command said (detection point `audit`). */
export type AuditOutcome = { ok: true } | { ok: false; reason: string };

/** The system while it is up. Seeding and reading go only through here. */
export interface TargetSession {
  /** Writes records into one context through the system's own write path, oldest first. */
  seed(context: ContextName, records: readonly SeedRecord[]): Promise<void>;
  /** Reads one context through the system's own read path; a throw counts as the system refusing. */
  read(context: ContextName): Promise<ReadOutcome>;
  /** The system's own separate integrity check, when it has one (detection point `audit`). */
  audit?(context: ContextName): Promise<AuditOutcome>;
  /** Stops the system (closes files, connections, processes), as a shutdown would. */
  stop(): Promise<void>;
}

/** A whole-store copy for T9, taken and restored with generic tooling. */
export interface RawSnapshot {
  /** Puts the copied state back, replacing whatever the store holds now. */
  restore(): Promise<void>;
}

/**
 * Access that bypasses the system, used while it is stopped (position `restarted`), or while its session runs across
 * the edit (position `alive`: there C3's before/after listings read the medium under the running process too, which
 * is sound for a file store whose process holds no uncommitted state). Every method logs the exact command it ran
 * (SQL, Cypher, file operation) through the `log` the store was created with.
 */
export interface RawAccess {
  /** Every record of a context in the store's own order (oldest first), with raw fields. */
  list(context: ContextName): Promise<RawRecord[]>;
  /** Overwrites the body of `record`'s slot with `body` (another record's), keeping slot, owner, position, parent. */
  writeBody(record: RawRecord, body: string): Promise<void>;
  /** Deletes one record. */
  remove(record: RawRecord): Promise<void>;
  /** T1: changes the record's meaning (a number in its content) without breaking its encoding. */
  changeMeaning?(record: RawRecord): Promise<void>;
  /** T5: appends one record after `tip` in the store's format, templated on it, as an attacker without keys can. */
  forge?(tip: RawRecord): Promise<void>;
  /** T2, scored form: moves a separate "latest" pointer to `newTip`. Absent when the store keeps none. */
  moveHead?(context: ContextName, newTip: RawRecord | undefined): Promise<void>;
  /** T3, optional form: repoints `record`'s plain-data parent link to `parent`. */
  relink?(record: RawRecord, parent: RawRecord): Promise<void>;
  /** T8: changes one metadata label of the record (source, role, timestamp), content untouched. */
  relabel?(record: RawRecord): Promise<void>;
  /** T8 `unrevoke` variant: clears or moves the revocation fields of a revoked record and nothing else. */
  unrevoke?(record: RawRecord): Promise<void>;
  /** T9: copies the entire store (every file or table it persists, sidecars included). */
  snapshot?(): Promise<RawSnapshot>;
}

/** A fresh isolated store of one target (one per cell). */
export interface TargetStore {
  /** Starts the system on this store through its own code (first start, or a restart). */
  start(): Promise<TargetSession>;
  /** Generic-tooling access; while no session is running, or across a running one in the `alive` position. */
  raw: RawAccess;
  /** Removes the store (temporary directory, graph groups, processes). */
  dispose(): Promise<void>;
}

/**
 * Where the system is while an edit is made (integrity.md §2.3): `restarted` (the method's position: stop, edit,
 * start, then read and audit) or `alive` (the §2.3 MAY: the session that passed C1 stays up across the edit, and the
 * read and audit run in that same process).
 */
export type TargetPosition = 'restarted' | 'alive';

/** What a result must state about the configuration under test (integrity.md §7.3). */
export interface TargetDescription {
  /** Human name; anything that is not the real library says `(model)` (integrity.md §7.4). */
  label: string;
  /** True when this is not the real library (our systems on their engines, re-implementations). */
  model: boolean;
  /** Exact versions of the memory component and what it runs on, e.g. `{mem0ai: '3.3.1'}`. */
  versions: Record<string, string>;
  /** The store backend and its version, e.g. `SQLite 3.50.4 (better-sqlite3 12.11.1)`. */
  store: string;
  /** Integrity, signing, encryption or audit features and whether they are on (`receipts: 'off (default)'`). */
  config: Record<string, string>;
  /** Where the target's own signal appears: on the read path, or in a separate audit command. */
  detection: 'read' | 'audit';
  /** How many isolated contexts the store exposes; with one, T6 is not evaluable and C2 checks A only. */
  contexts: 1 | 2;
  /** Set for an unordered key-value store with no metadata layer (§6): T2, T4, T8 are then not applicable. */
  unordered?: string;
  /** Revocation/status fields the `unrevoke` variant may clear; absent when the store has none. */
  revocationFields?: readonly string[];
  /** The generic tooling the edits use (`SQL through better-sqlite3 on vector_store.db`). */
  tooling: string;
  /** The process position during each edit; absent = `restarted`, the method's (§2.3). */
  position?: TargetPosition;
}

/** Settings a target receives for one cell. */
export interface StoreSettings {
  /** An empty directory this cell owns (store files, sidecars, an off-store witness beside it). */
  dir: string;
  /** Unique id of the cell, for stores that share a server (Neo4j group ids). */
  cellId: string;
  /** Receives every raw command the edit runs, in order, exactly as run. */
  log(command: string): void;
}

/** Why a target cannot run here at all: its cells become `not-evaluable` with this reason. */
export interface Unavailable {
  reason: string;
  /** True when a prerequisite the user must install is missing (python3, the venv): the command exits 1. */
  missingPrerequisite?: boolean;
}

/**
 * One integrity target.
 *
 * @example
 * const target = await loadIntegrityTarget('reference');
 * const store = await target.createStore({ dir, cellId: 'reference-T1', log: console.log });
 * const session = await store.start();
 */
export interface IntegrityTarget {
  /** Registry id (`reference`, `mem0`, `graphiti@neo4j`, ...). */
  readonly id: string;
  /** Configuration under test, with exact versions (async: a process adapter asks its driver). */
  describe(): Promise<TargetDescription>;
  /** Null when the target can run here, else why not. */
  unavailable?(): Promise<Unavailable | null>;
  /** Creates a fresh, isolated, empty store. */
  createStore(settings: StoreSettings): Promise<TargetStore>;
}
