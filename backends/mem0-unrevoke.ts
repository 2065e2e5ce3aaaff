// The `--tamper unrevoke` edit on mem0's SQLite memory store: SQL on vector_store.db, never mem0's code.
import { withRawSqlite } from './store-tools/raw-sqlite.js';
import type { Mem0Paths } from './mem0-client.js';
import type { TamperReport } from './memory-backend.js';

/**
 * Removes `expiration_date`, the only status mem0 OSS keeps (memory-systems.md §4.2), from every memory of `userId`
 * that has one, and nothing else; the same edit as the integrity target's `T8:unrevoke` (integrity/mem0-raw.ts).
 * Call it while no mem0 client has the file open, as an attacker editing a stopped store would.
 */
export function unrevokeMem0Store(paths: Mem0Paths, userId: string): TamperReport {
  const commands: string[] = [];
  const records = withRawSqlite(
    paths.vectorStore,
    'mem0/vector_store.db',
    (command) => commands.push(command),
    (db) => {
      const rows = db
        .all<{ id: string; payload: string }>('SELECT id, payload FROM vectors')
        .map((row) => ({ id: row.id, payload: JSON.parse(row.payload) as Record<string, unknown> }))
        .filter(({ payload }) => payload.user_id === userId && Object.hasOwn(payload, 'expiration_date'));
      for (const { id, payload } of rows) {
        const { expiration_date: _cleared, ...kept } = payload;
        db.run('UPDATE vectors SET payload = ? WHERE id = ?', [JSON.stringify(kept), id]);
      }
      return rows.length;
    },
  );
  return {
    edit: 'unrevoke',
    records,
    how: 'expiration_date removed from the payload by SQL on vector_store.db, nothing else',
  };
}
