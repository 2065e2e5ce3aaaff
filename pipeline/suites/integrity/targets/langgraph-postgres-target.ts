// Target `langgraph-postgres`: LangGraph's PostgresSaver (PyPI langgraph-checkpoint-postgres) through the store driver.
import { randomBytes } from 'node:crypto';
import { runPsql } from '../../../services/postgres-cluster.js';
import type { IntegrityTarget, TargetDescription, Unavailable } from './integrity-target.js';
import { checkpointTableRawAccess } from './langgraph-checkpoints-raw.js';
import { describePostgres, missingPostgres, postgresServer, type PostgresServer } from './postgres-server.js';
import { createPythonStoreTarget } from './python-store-target.js';
import { databaseSnapshot, databaseUri, psqlDatabase, type RawDatabase } from './raw-postgres.js';

/**
 * Creates the PostgresSaver target (backends/python/store_adapters/langgraph_postgres_store.py, env
 * `langgraph-postgres`). Each cell is its own database on one server: `$STALEBENCH_POSTGRES_URI` (e.g. from
 * `pnpm services start postgres`), else a throwaway cluster of the installed PostgreSQL the target starts itself.
 * Seeding and reading go through PostgresSaver.put(), get_tuple() and list(); the raw edits are the SQLite savers'
 * SQL on the same `checkpoints` table (checkpoint and metadata are JSONB here), run through psql; T9 copies the
 * cell's database with CREATE DATABASE … TEMPLATE and restores it by recreating the database from the copy.
 * agmi measured 3.1.2 on PostgreSQL 16 (Docker); Debian's package here is PostgreSQL 15, and describe() names the
 * server that ran. PostgresSaver checks nothing it reads, so the server version has no part in the verdicts.
 * `release` picks another pinned environment (`langgraph-postgres@3.2.0` runs PyPI's newest from
 * `langgraph-postgres-latest`).
 *
 * @example const target = createLanggraphPostgresTarget(process.cwd(), process.env);
 */
export function createLanggraphPostgresTarget(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  release: { id: string; storeEnv: string } = { id: 'langgraph-postgres', storeEnv: 'langgraph-postgres' },
): IntegrityTarget {
  let server: PostgresServer | undefined;
  const python = createPythonStoreTarget({
    id: release.id,
    adapter: 'langgraph_postgres_store',
    env: release.storeEnv,
    config: {},
    root,
    async cell({ cellId }) {
      server = await postgresServer(env);
      const { uri, bin } = server;
      const database = `sb_${cellId
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .slice(0, 40)}_${randomBytes(4).toString('hex')}`;
      runPsql(bin, uri, `CREATE DATABASE "${database}";\n`);
      return {
        config: { uri: databaseUri(uri, database), database },
        async dispose() {
          runPsql(
            bin,
            uri,
            `DROP DATABASE IF EXISTS "${database}" WITH (FORCE);\nDROP DATABASE IF EXISTS "${database}_snapshot";\n`,
          );
        },
      };
    },
    raw: (files, log, cell) => {
      if (!server || cell.database === undefined) throw new Error('the cell database was not created');
      const target: RawDatabase = { bin: server.bin, adminUri: server.uri, database: String(cell.database) };
      return checkpointTableRawAccess({
        sql: (work) => work(psqlDatabase(target, log)),
        jsonColumns: true,
        threads: files.owners,
        snapshot: () => databaseSnapshot(target, log),
      });
    },
  });
  return {
    ...python,
    async unavailable(): Promise<Unavailable | null> {
      const missing = missingPostgres(env);
      if (missing) return { reason: missing, missingPrerequisite: true };
      return (await python.unavailable?.()) ?? null;
    },
    async describe(): Promise<TargetDescription> {
      const described = await python.describe();
      if (described.store === 'not installed' || missingPostgres(env)) return described;
      const store = describePostgres(env);
      return {
        ...described,
        label: `${described.label} on ${store.split(' (')[0]?.split(' at ')[0]}`,
        versions: { ...described.versions, PostgreSQL: store.split(' ')[1] ?? 'unknown' },
        store: `${store}; one database per cell: checkpoints (JSONB), checkpoint_blobs, checkpoint_writes`,
        tooling: `SQL through psql on the cell's database; T9: CREATE DATABASE … TEMPLATE, then drop and recreate from the copy; driven through backends/python/stalebench_store_driver.py`,
      };
    },
  };
}
