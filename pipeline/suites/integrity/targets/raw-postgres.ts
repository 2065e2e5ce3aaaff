// Generic PostgreSQL tooling for raw edits: psql (the server's own client) on one database, never the target's code.
import { runPsql } from '../../../services/postgres-cluster.js';
import type { RawSnapshot } from './integrity-target.js';
import { sqlCommandLine, type RawSqlite, type SqlValue } from '../../../../backends/store-tools/raw-sqlite.js';

/** One database on a server, reached through psql. */
export interface RawDatabase {
  /** The directory holding psql. */
  bin: string;
  /** URI of the server's maintenance database (`.../postgres`): CREATE/DROP DATABASE run there. */
  adminUri: string;
  /** The database the store lives in. */
  database: string;
}

/** The URI of `database` on the server of `uri`. */
export function databaseUri(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}

/** `?` placeholders as psql variables `:'p1'`… (quoted literals); a null is written as NULL. */
function bind(sql: string, parameters: readonly SqlValue[]): { text: string; variables: Record<string, string> } {
  const variables: Record<string, string> = {};
  let index = 0;
  const text = sql.replace(/\?/g, () => {
    const value = parameters[index];
    index += 1;
    if (value === null || value === undefined) return 'NULL';
    if (Buffer.isBuffer(value)) throw new Error('psql variables carry text only; this column needs a bytea literal');
    variables[`p${index}`] = String(value);
    return `:'p${index}'`;
  });
  if (index !== parameters.length) throw new Error(`${parameters.length} parameters for ${index} placeholders`);
  return { text, variables };
}

/**
 * The {@link RawSqlite} shape over psql, so SQL written for the SQLite stores runs unchanged: `all` returns each row
 * as `row_to_json` gives it (JSON columns back as compact JSON text), `run` logs `psql <database> "<sql>" -- <values>
 * (<n> rows)`.
 */
export function psqlDatabase(target: RawDatabase, log: (command: string) => void): RawSqlite {
  const uri = databaseUri(target.adminUri, target.database);
  return {
    all<T>(sql: string, parameters: readonly SqlValue[] = []): T[] {
      const { text, variables } = bind(sql, parameters);
      const printed = runPsql(target.bin, uri, `SELECT row_to_json(q) FROM (${text}) q;\n`, variables);
      return printed
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          const row = JSON.parse(line) as Record<string, unknown>;
          for (const [key, value] of Object.entries(row))
            if (value !== null && typeof value === 'object') row[key] = JSON.stringify(value);
          return row as T;
        });
    },
    run(sql: string, parameters: readonly SqlValue[] = []): void {
      const { text, variables } = bind(sql, parameters);
      const printed = runPsql(
        target.bin,
        uri,
        `WITH changed AS (${text} RETURNING 1) SELECT count(*) FROM changed;\n`,
        variables,
      );
      const changes = Number(printed.trim());
      log(sqlCommandLine(`psql ${target.database}`, sql, parameters, changes));
    },
  };
}

/**
 * T9: `CREATE DATABASE <db>_snapshot TEMPLATE <db>` copies every table; restore drops the store's database and
 * recreates it from the copy, then drops the copy. Each command is logged as run.
 */
export async function databaseSnapshot(target: RawDatabase, log: (command: string) => void): Promise<RawSnapshot> {
  const copy = `${target.database}_snapshot`;
  const admin = (sql: string) => {
    runPsql(target.bin, target.adminUri, `${sql};\n`);
    log(`psql -d postgres -c '${sql}'`);
  };
  admin(`DROP DATABASE IF EXISTS "${copy}"`);
  admin(`CREATE DATABASE "${copy}" TEMPLATE "${target.database}"`);
  return {
    async restore() {
      admin(`DROP DATABASE "${target.database}"`);
      admin(`CREATE DATABASE "${target.database}" TEMPLATE "${copy}"`);
      admin(`DROP DATABASE "${copy}"`);
    },
  };
}
