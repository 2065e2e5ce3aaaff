// Raw access to a CONTINUUM SQLite store: SQL on its `events` table through better-sqlite3, never the library.
import { randomBytes } from 'node:crypto';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { directorySnapshot } from './raw-files.js';
import { withRawSqlite, type RawSqlite, type SqlValue } from '../../../../backends/store-tools/raw-sqlite.js';

interface EventRow {
  run_id: string;
  sequence: number;
  event_id: string;
  type: string;
  timestamp: string;
  payload: string;
  causer_event_id: string | null;
  source: string;
  prev_hash: string | null;
  hash: string;
}

/** The columns that move with a record; run_id, sequence and event_id are its slot and stay. */
const MOVING = ['type', 'timestamp', 'payload', 'causer_event_id', 'source', 'prev_hash', 'hash'] as const;
/** The event type the adapter writes a memory as (backends/python/store_adapters/continuum_events.py). */
const MEMORY_TYPE = 'FINDING_ADDED';
/** One `?` per column of an inserted event (its slot's three plus the moving ones). */
const PLACEHOLDERS = Array(3 + MOVING.length)
  .fill('?')
  .join(', ');

const claimOf = (row: EventRow): string => String((JSON.parse(row.payload) as { claim?: JsonValue }).claim ?? '');

const toRaw = (row: EventRow): RawRecord => ({
  slot: row.event_id,
  owner: row.run_id,
  position: row.sequence,
  text: claimOf(row),
  body: canonicalJson(Object.fromEntries(MOVING.map((column) => [column, row[column]]))),
  labels: { source: row.source, timestamp: row.timestamp },
});

/** Replaces `from` by `to` where it occurs exactly once in `text`. */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`"${from}" does not occur exactly once in ${text}`);
  return `${text.slice(0, at)}${to}${text.slice(at + from.length)}`;
}

/**
 * Raw access over `events`. A record is one FINDING_ADDED event of the context's run (the RUN_STARTED event at
 * sequence 1 is the run's header, not a memory); its slot is its event_id (unique across the table), its position
 * its sequence; the other columns are its body. T1 changes the number inside the payload's claim (same length, the
 * JSON still parses); T5 inserts an event templated on the tip with a random event id and a random 64-hex hash (the
 * suite never recomputes the keyless digest, integrity.md §8.2 item 6); T8 changes the `source` origin from
 * `deterministic` to `human`.
 */
export function continuumEventsRawAccess(
  files: { sqlite: string; storeDir: string; owners: Record<ContextName, string> },
  log: (command: string) => void,
): RawAccess {
  const sql = <T>(work: (db: RawSqlite) => T): T => withRawSqlite(files.sqlite, 'store/continuum.db', log, work);
  const rowOf = (db: RawSqlite, record: RawRecord): EventRow => {
    const [row] = db.all<EventRow>('SELECT * FROM events WHERE event_id = ?', [record.slot]);
    if (!row) throw new Error(`no CONTINUUM event ${record.slot}`);
    return row;
  };
  return {
    list: async (context) =>
      sql((db) =>
        db.all<EventRow>('SELECT * FROM events WHERE run_id = ? AND type = ? ORDER BY sequence', [
          files.owners[context],
          MEMORY_TYPE,
        ]),
      ).map(toRaw),
    async writeBody(record, body) {
      const moved = parseBody(body);
      sql((db) =>
        db.run(`UPDATE events SET ${MOVING.map((column) => `${column} = ?`).join(', ')} WHERE event_id = ?`, [
          ...MOVING.map((column) => (moved[column] ?? null) as SqlValue),
          rowOf(db, record).event_id,
        ]),
      );
    },
    async remove(record) {
      sql((db) => db.run('DELETE FROM events WHERE event_id = ?', [rowOf(db, record).event_id]));
    },
    async changeMeaning(record) {
      sql((db) => {
        const row = rowOf(db, record);
        const { from, to } = changedNumber(claimOf(row));
        db.run('UPDATE events SET payload = ? WHERE event_id = ?', [replaceOnce(row.payload, from, to), row.event_id]);
      });
    },
    async forge(tip) {
      sql((db) => {
        const row = rowOf(db, tip);
        const payload = JSON.parse(row.payload) as Record<string, JsonValue>;
        const forged = {
          ...payload,
          finding_id: `${row.run_id}-f${row.sequence}`,
          claim: changedNumber(claimOf(row)).text,
        };
        db.run(`INSERT INTO events (run_id, sequence, event_id, ${MOVING.join(', ')}) VALUES (${PLACEHOLDERS})`, [
          row.run_id,
          row.sequence + 1,
          `event_${randomBytes(16).toString('hex')}`,
          row.type,
          row.timestamp,
          JSON.stringify(forged),
          row.causer_event_id,
          row.source,
          row.hash,
          randomBytes(32).toString('hex'),
        ]);
      });
    },
    async relabel(record) {
      sql((db) => {
        const row = rowOf(db, record);
        db.run('UPDATE events SET source = ? WHERE event_id = ?', [
          row.source === 'human' ? 'deterministic' : 'human',
          row.event_id,
        ]);
      });
    },
    snapshot: () => directorySnapshot(files.storeDir, 'store', log),
  };
}
