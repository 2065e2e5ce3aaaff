// Generic SQLite tooling for raw edits: better-sqlite3 on the store's file, never the target's code; writes are logged.
import Database from 'better-sqlite3';

/** A parameter value as better-sqlite3 binds it. */
export type SqlValue = string | number | bigint | Buffer | null;

/** One SQLite file opened for one raw operation. */
export interface RawSqlite {
  /** Rows of a SELECT (not logged: reading is not an edit). */
  all<T>(sql: string, parameters?: readonly SqlValue[]): T[];
  /** Runs a write and logs it as `sqlite3 <file> "<sql>" -- <parameters>`. */
  run(sql: string, parameters?: readonly SqlValue[]): void;
}

const shown = (value: SqlValue): string => {
  if (Buffer.isBuffer(value))
    return `x'${value.toString('hex').slice(0, 48)}${value.length > 24 ? '…' : ''}' (${value.length} bytes)`;
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
};

/** A write as logged: `<tool> "<sql>" -- <parameters> (<n> rows)`, blobs as a hex prefix and their length. */
export function sqlCommandLine(tool: string, sql: string, parameters: readonly SqlValue[], changes: number): string {
  const bound = parameters.length ? ` -- ${parameters.map(shown).join(', ')}` : '';
  return `${tool} "${sql.replace(/\s+/g, ' ').trim()}"${bound} (${changes} row${changes === 1 ? '' : 's'})`;
}

/** The SQLite version better-sqlite3 links, for target descriptions. */
export function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS version').get() as { version: string }).version;
  } finally {
    db.close();
  }
}

/**
 * Opens `path`, runs `work`, and closes the file again, so no handle stays open when the system restarts.
 * `label` names the file in logged commands.
 *
 * @example withRawSqlite(path, 'mem0/vector_store.db', log, (db) => db.run('DELETE FROM vectors WHERE id = ?', [id]));
 */
export function withRawSqlite<T>(
  path: string,
  label: string,
  log: (command: string) => void,
  work: (db: RawSqlite) => T,
): T {
  const db = new Database(path, { fileMustExist: true });
  try {
    return work({
      all: <R>(sql: string, parameters: readonly SqlValue[] = []) => db.prepare(sql).all(...parameters) as R[],
      run(sql, parameters = []) {
        const changes = db.prepare(sql).run(...parameters).changes;
        log(sqlCommandLine(`sqlite3 ${label}`, sql, parameters, changes));
      },
    });
  } finally {
    db.close();
  }
}
