// Generic PostgreSQL tooling for raw edits on a stopped store's data directory: pg_ctl start, psql, pg_ctl stop, every command logged.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** A running throwaway server on a store's data directory, reachable only through its unix socket. */
export interface RawPostgres {
  /** Runs one SQL statement through psql (logged as run); returns psql's unaligned output. */
  sql(statement: string): string;
  /** Rows of a SELECT as JSON objects (wrapped in `json_agg(... ORDER BY orderBy)`), in that order. */
  rows<T>(select: string, orderBy: string): T[];
}

/** Where a PostgreSQL data directory is and which binaries open it. */
export interface PostgresDir {
  /** The data directory (its unix socket is created inside it). */
  pgdata: string;
  /** The directory holding pg_ctl and psql of the same major version as the data directory. */
  bin: string;
  /** The database the store uses. */
  database: string;
  /** How logged commands name the data directory (`store/pgdata`). */
  label: string;
}

/** The PostgreSQL binaries the pgserver wheel bundles in a venv (`<venv>/lib/python3.X/site-packages/pgserver/pginstall/bin`). */
export function pgserverBin(venv: string): string | null {
  const lib = join(venv, 'lib');
  if (!existsSync(lib)) return null;
  for (const python of readdirSync(lib)) {
    const bin = join(lib, python, 'site-packages', 'pgserver', 'pginstall', 'bin');
    if (existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

/** PostgreSQL refuses to run as root: as root, the server runs as the system user `postgres`. */
const asServerUser = (command: string[]): string[] =>
  process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...command] : command;

/** `'text'` as a SQL string literal (standard_conforming_strings is on by default). */
export const sqlText = (value: string): string => `'${value.replaceAll("'", "''")}'`;

function run(command: string[], log: (line: string) => void, shown: string): string {
  log(shown);
  const [program, ...args] = command;
  const result = spawnSync(program as string, args, { encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw new Error(`${shown}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${shown} exited ${result.status}: ${result.stderr.trim()}`);
  return result.stdout;
}

/**
 * Starts a server on the stopped store's data directory (no TCP, socket in the directory), runs `work`, and stops
 * it, as an operator with shell access would. Every command, SQL included, goes to `log` exactly as run.
 *
 * @example withRawPostgres(dir, log, (db) => db.sql('DELETE FROM block_history WHERE id = \'x\''))
 */
export function withRawPostgres<T>(dir: PostgresDir, log: (line: string) => void, work: (db: RawPostgres) => T): T {
  const ctl = join(dir.bin, 'pg_ctl');
  const options = `-c listen_addresses='' -k ${dir.pgdata}`;
  run(
    asServerUser([ctl, '-D', dir.pgdata, '-o', options, '-l', join(dir.pgdata, 'server.log'), '-w', 'start']),
    log,
    `pg_ctl -D ${dir.label} -o "${options.replace(dir.pgdata, dir.label)}" -w start`,
  );
  try {
    const psql = join(dir.bin, 'psql');
    const db: RawPostgres = {
      sql: (statement) =>
        run(
          [
            psql,
            '-X',
            '-q',
            '-A',
            '-t',
            '-v',
            'ON_ERROR_STOP=1',
            '-h',
            dir.pgdata,
            '-U',
            'postgres',
            '-d',
            dir.database,
            '-c',
            statement,
          ],
          log,
          `psql -h ${dir.label} -U postgres -d ${dir.database} -c ${JSON.stringify(statement)}`,
        ),
      rows: <T>(select: string, orderBy: string): T[] =>
        JSON.parse(
          db.sql(`SELECT coalesce(json_agg(row_to_json(t) ORDER BY ${orderBy}), '[]') FROM (${select}) t`).trim(),
        ) as T[],
    };
    return work(db);
  } finally {
    run(
      asServerUser([ctl, '-D', dir.pgdata, '-m', 'fast', '-w', 'stop']),
      log,
      `pg_ctl -D ${dir.label} -m fast -w stop`,
    );
  }
}
