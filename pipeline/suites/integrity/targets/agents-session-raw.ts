// Raw access to the OpenAI Agents SDK's SQLiteSession file (the `agent_messages` table): SQL through better-sqlite3.
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { directorySnapshot } from './raw-files.js';
import { withRawSqlite, type RawSqlite } from '../../../../backends/store-tools/raw-sqlite.js';
import { changedNumber } from '../harness/seed-plan.js';

/** Where the session file is and how contexts map to session ids. */
export interface SessionFile {
  /** The SQLite file. */
  path: string;
  /** Its directory (copied whole for T9: the file and its -wal/-shm sidecars). */
  dir: string;
  /** How logged commands name the file. */
  label: string;
  /** session_id per context. */
  sessions: Record<ContextName, string>;
}

interface MessageRow {
  id: number;
  session_id: string;
  message_data: string;
  created_at: string;
}

const SELECT = 'SELECT id, session_id, message_data, created_at FROM agent_messages';

/** The item's text: `content` of a message item, else the raw JSON (a row that does not decode stays visible). */
function itemText(messageData: string): string {
  try {
    const item = JSON.parse(messageData) as { content?: unknown };
    return typeof item.content === 'string' ? item.content : messageData;
  } catch {
    return messageData;
  }
}

const toRaw = (row: MessageRow): RawRecord => ({
  slot: `agent_messages/${row.id}`,
  owner: row.session_id,
  position: row.id,
  text: itemText(row.message_data),
  body: canonicalJson({ message_data: row.message_data }),
  labels: { created_at: row.created_at } as Record<string, JsonValue>,
});

/**
 * Raw access over `agent_messages`. Records are conversation items; a context is a session_id; the store's order
 * is the autoincrement id (get_items() sorts by it). The only metadata is `created_at`: T8 moves it a year back.
 */
export function agentsSessionRawAccess(file: SessionFile, log: (command: string) => void): RawAccess {
  const sql = <T>(work: (db: RawSqlite) => T): T => withRawSqlite(file.path, file.label, log, work);
  const rowOf = (db: RawSqlite, record: RawRecord): MessageRow => {
    const [row] = db.all<MessageRow>(`${SELECT} WHERE id = ?`, [Number(record.position)]);
    if (!row) throw new Error(`no item ${record.slot}`);
    return row;
  };
  return {
    list: async (context) =>
      sql((db) => db.all<MessageRow>(`${SELECT} WHERE session_id = ? ORDER BY id`, [file.sessions[context]])).map(
        toRaw,
      ),
    async writeBody(record, body) {
      const messageData = String(parseBody(body).message_data);
      sql((db) =>
        db.run('UPDATE agent_messages SET message_data = ? WHERE id = ?', [messageData, rowOf(db, record).id]),
      );
    },
    async remove(record) {
      sql((db) => db.run('DELETE FROM agent_messages WHERE id = ?', [rowOf(db, record).id]));
    },
    async changeMeaning(record) {
      sql((db) => {
        const row = rowOf(db, record);
        const item = JSON.parse(row.message_data) as Record<string, JsonValue>;
        const changed = JSON.stringify({ ...item, content: changedNumber(record.text).text });
        db.run('UPDATE agent_messages SET message_data = ? WHERE id = ?', [changed, row.id]);
      });
    },
    async forge(tip) {
      sql((db) => {
        const row = rowOf(db, tip);
        const item = JSON.parse(row.message_data) as Record<string, JsonValue>;
        const forged = JSON.stringify({ ...item, content: changedNumber(tip.text).text });
        db.run('INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?, ?, ?)', [
          row.session_id,
          forged,
          row.created_at,
        ]);
      });
    },
    async relabel(record) {
      sql((db) => {
        const row = rowOf(db, record);
        const year = Number(row.created_at.slice(0, 4)) - 1;
        db.run('UPDATE agent_messages SET created_at = ? WHERE id = ?', [`${year}${row.created_at.slice(4)}`, row.id]);
      });
    },
    snapshot: () => directorySnapshot(file.dir, file.label.split('/')[0] ?? file.label, log),
  };
}
