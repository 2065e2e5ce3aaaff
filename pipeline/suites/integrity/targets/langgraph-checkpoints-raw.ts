// Raw access to a LangGraph checkpointer's `checkpoints` table (the SQLite savers' file, PostgresSaver's database): SQL and bytes.
import { createHash } from 'node:crypto';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord, RawSnapshot } from './integrity-target.js';
import { directorySnapshot } from './raw-files.js';
import { withRawSqlite, type RawSqlite, type SqlValue } from '../../../../backends/store-tools/raw-sqlite.js';
import { changedNumber } from '../harness/seed-plan.js';

/** Where the saver's file is and how contexts map to threads. */
export interface CheckpointFile {
  /** The SQLite file. */
  path: string;
  /** Its directory (copied whole for T9: the file and its -wal/-shm sidecars). */
  dir: string;
  /** How logged commands name the file. */
  label: string;
  /** thread_id per context. */
  threads: Record<ContextName, string>;
  /**
   * The blobs are ciphertext (LangGraph's EncryptedSerializer, type `msgpack+aes`), so no number can be changed in
   * them without the key: T1 then flips one ciphertext byte, and T5 writes a plaintext `json` checkpoint.
   */
  encrypted?: boolean;
}

/**
 * The `checkpoints` table wherever it lives: SQL with `?` placeholders on one open database, the column format, and a
 * whole-store copy for T9.
 */
export interface CheckpointTable {
  /** Runs `work` with the database open; writes are logged by `db.run`. */
  sql<T>(work: (db: RawSqlite) => T): T;
  /** True where `checkpoint` and `metadata` are JSON columns read as text (PostgresSaver's JSONB), whatever `type` says. */
  jsonColumns: boolean;
  /** thread_id per context. */
  threads: Record<ContextName, string>;
  /** T9: copies every table of the store. */
  snapshot(): Promise<RawSnapshot>;
  /** The blobs are ciphertext (see {@link CheckpointFile.encrypted}). */
  encrypted?: boolean;
}

interface CheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Buffer | string;
  metadata: Buffer | string;
}

const SELECT =
  'SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints';
const encode = (value: Buffer | string): JsonValue =>
  typeof value === 'string' ? { text: value } : { blob: value.toString('base64') };
const decode = (value: JsonValue | undefined): SqlValue => {
  const stored = (value ?? {}) as { text?: string; blob?: string };
  return stored.text !== undefined ? stored.text : Buffer.from(stored.blob ?? '', 'base64');
};
const bytes = (value: Buffer | string): Buffer => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value);
const sameClass = (original: Buffer | string, changed: Buffer): Buffer | string =>
  typeof original === 'string' ? changed.toString('utf8') : changed;

/**
 * The record text inside a checkpoint blob: `channel_values.memory` of a JSON checkpoint, or, in a msgpack blob,
 * the str starting at the seeded `Context ` marker, its length read from the msgpack str header before it.
 */
function checkpointText(type: string | null, checkpoint: Buffer | string, jsonColumns: boolean): string {
  const buffer = bytes(checkpoint);
  if (type === 'json' || jsonColumns) {
    const parsed = JSON.parse(buffer.toString('utf8')) as { channel_values?: { memory?: unknown } };
    return String(parsed.channel_values?.memory ?? '');
  }
  const at = buffer.indexOf('Context ');
  if (at < 0) {
    // Ciphertext has no readable text: its digest stands for it, so C3 still sees a changed byte.
    const digest = createHash('sha256').update(buffer).digest('hex').slice(0, 16);
    return `<${type ?? 'untyped'} checkpoint of ${buffer.length} bytes, sha256 ${digest}>`;
  }
  const fix = buffer[at - 1] ?? 0;
  const length =
    (fix & 0xe0) === 0xa0
      ? fix & 0x1f
      : buffer[at - 2] === 0xd9
        ? fix
        : buffer[at - 3] === 0xda
          ? buffer.readUInt16BE(at - 2)
          : -1;
  if (length < 0) return `<msgpack str without a readable header at byte ${at}>`;
  return buffer.subarray(at, at + length).toString('utf8');
}

const toRaw = (row: CheckpointRow, jsonColumns: boolean): RawRecord => ({
  slot: `${row.thread_id}/${row.checkpoint_ns}/${row.checkpoint_id}`,
  owner: row.thread_id,
  position: row.checkpoint_id,
  parent:
    row.parent_checkpoint_id === null ? null : `${row.thread_id}/${row.checkpoint_ns}/${row.parent_checkpoint_id}`,
  text: checkpointText(row.type, row.checkpoint, jsonColumns),
  body: canonicalJson({ type: row.type, checkpoint: encode(row.checkpoint), metadata: encode(row.metadata) }),
  labels: JSON.parse(bytes(row.metadata).toString('utf8')) as Record<string, JsonValue>,
});

/** Replaces `from` by `to` (same byte length) where it occurs exactly once in `buffer`. */
function replaceOnce(buffer: Buffer, from: string, to: string): Buffer {
  const [source, target] = [Buffer.from(from, 'utf8'), Buffer.from(to, 'utf8')];
  if (source.length !== target.length) throw new Error('a same-length replacement is needed to keep the encoding');
  const at = buffer.indexOf(source);
  if (at < 0 || buffer.indexOf(source, at + 1) >= 0)
    throw new Error(`"${from}" does not occur exactly once in the blob`);
  const changed = Buffer.from(buffer);
  target.copy(changed, at);
  return changed;
}

/** The number in the record's text changed inside its readable blob, same length, encoding intact. */
function numberChanged(blob: Buffer, text: string): Buffer {
  const { from, to } = changedNumber(text);
  return replaceOnce(blob, from, to);
}

/** A uuid that sorts right after `id` (its last 12 hex digits plus one), version and variant untouched. */
export function nextId(id: string): string {
  const node = (BigInt(`0x${id.slice(-12)}`) + 1n).toString(16).padStart(12, '0');
  return `${id.slice(0, -12)}${node}`;
}

/** EncryptedSerializer's AES blob: a 16-byte nonce, a 16-byte tag, then the ciphertext. */
const CIPHERTEXT_OFFSET = 32;

/** T1 on ciphertext: the first ciphertext byte XOR 1 (same length; what an attacker without the key can do). */
function flipCiphertextByte(blob: Buffer): Buffer {
  if (blob.length <= CIPHERTEXT_OFFSET) throw new Error(`a ${blob.length}-byte blob holds no ciphertext to flip`);
  const changed = Buffer.from(blob);
  changed[CIPHERTEXT_OFFSET] = (changed[CIPHERTEXT_OFFSET] ?? 0) ^ 1;
  return changed;
}

/** T5 without the key: a plaintext checkpoint typed `json`, which the serializer's unencrypted path loads. */
function plaintextCheckpoint(id: string): Buffer {
  const memory = 'Forged record: the approved transfer limit is 999999 EUR.';
  return Buffer.from(
    JSON.stringify({
      v: 4,
      id,
      ts: new Date().toISOString(),
      channel_values: { memory },
      channel_versions: { memory: 99 },
      versions_seen: {},
      pending_sends: [],
      updated_channels: null,
    }),
    'utf8',
  );
}

/**
 * Raw access over the `checkpoints` table. Records are checkpoints; a context is a thread; the store's order is
 * `checkpoint_id` (uuid6, time-sortable), the latest checkpoint being the largest. There is no separate head.
 */
export function checkpointRawAccess(file: CheckpointFile, log: (command: string) => void): RawAccess {
  return checkpointTableRawAccess({
    sql: (work) => withRawSqlite(file.path, file.label, log, work),
    jsonColumns: false,
    threads: file.threads,
    snapshot: () => directorySnapshot(file.dir, file.label.split('/')[0] ?? file.label, log),
    ...(file.encrypted ? { encrypted: true } : {}),
  });
}

/** The same raw access over any {@link CheckpointTable} (PostgresSaver's database through psql). */
export function checkpointTableRawAccess(table: CheckpointTable): RawAccess {
  const sql = <T>(work: (db: RawSqlite) => T): T => table.sql(work);
  const rowOf = (db: RawSqlite, record: RawRecord): CheckpointRow => {
    const [thread, namespace, id] = [record.owner, record.slot.split('/')[1] ?? '', String(record.position)];
    const [row] = db.all<CheckpointRow>(`${SELECT} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`, [
      thread,
      namespace,
      id,
    ]);
    if (!row) throw new Error(`no checkpoint ${record.slot}`);
    return row;
  };
  const where = 'WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?';
  const key = (row: CheckpointRow): SqlValue[] => [row.thread_id, row.checkpoint_ns, row.checkpoint_id];
  return {
    list: async (context) =>
      sql((db) =>
        db.all<CheckpointRow>(`${SELECT} WHERE thread_id = ? ORDER BY checkpoint_id`, [table.threads[context]]),
      ).map((row) => toRaw(row, table.jsonColumns)),
    async writeBody(record, body) {
      const moved = parseBody(body);
      sql((db) =>
        db.run(`UPDATE checkpoints SET type = ?, checkpoint = ?, metadata = ? ${where}`, [
          moved.type === null || moved.type === undefined ? null : String(moved.type),
          decode(moved.checkpoint),
          decode(moved.metadata),
          ...key(rowOf(db, record)),
        ]),
      );
    },
    async remove(record) {
      sql((db) => db.run(`DELETE FROM checkpoints ${where}`, key(rowOf(db, record))));
    },
    async changeMeaning(record) {
      sql((db) => {
        const row = rowOf(db, record);
        const blob = bytes(row.checkpoint);
        const changed = table.encrypted ? flipCiphertextByte(blob) : numberChanged(blob, record.text);
        db.run(`UPDATE checkpoints SET checkpoint = ? ${where}`, [sameClass(row.checkpoint, changed), ...key(row)]);
      });
    },
    async forge(tip) {
      sql((db) => {
        const row = rowOf(db, tip);
        const id = nextId(row.checkpoint_id);
        const [type, checkpoint] = table.encrypted
          ? ['json', plaintextCheckpoint(id)]
          : [row.type, replaceOnce(numberChanged(bytes(row.checkpoint), tip.text), row.checkpoint_id, id)];
        const metadata = JSON.parse(bytes(row.metadata).toString('utf8')) as Record<string, JsonValue>;
        const forgedMetadata = Buffer.from(
          JSON.stringify({ ...metadata, step: Number(metadata.step ?? 0) + 1 }),
          'utf8',
        );
        db.run(
          'INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [
            row.thread_id,
            row.checkpoint_ns,
            id,
            row.checkpoint_id,
            type,
            sameClass(row.checkpoint, checkpoint),
            sameClass(row.metadata, forgedMetadata),
          ],
        );
      });
    },
    async relink(record, parent) {
      sql((db) =>
        db.run(`UPDATE checkpoints SET parent_checkpoint_id = ? ${where}`, [
          String(parent.position),
          ...key(rowOf(db, record)),
        ]),
      );
    },
    async relabel(record) {
      sql((db) => {
        const row = rowOf(db, record);
        const metadata = JSON.parse(bytes(row.metadata).toString('utf8')) as Record<string, JsonValue>;
        const changed = Buffer.from(
          JSON.stringify({ ...metadata, source: metadata.source === 'update' ? 'loop' : 'update' }),
          'utf8',
        );
        db.run(`UPDATE checkpoints SET metadata = ? ${where}`, [sameClass(row.metadata, changed), ...key(row)]);
      });
    },
    snapshot: () => table.snapshot(),
  };
}
