import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { runPsql } from '../../../services/postgres-cluster.js';
import { createLanggraphPostgresTarget } from './langgraph-postgres-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import { postgresServer } from './postgres-server.js';

const root = new URL('../../../..', import.meta.url).pathname;
// agmi's version (3.1.2) and PyPI's newest, each in its own pinned environment.
const releases = [
  { id: 'langgraph-postgres', storeEnv: 'langgraph-postgres', version: '3.1.2' },
  { id: 'langgraph-postgres@3.2.0', storeEnv: 'langgraph-postgres-latest', version: '3.2.0' },
];
const targets = await Promise.all(
  releases.map(async (release) => {
    const target = createLanggraphPostgresTarget(root, process.env, release);
    const reason = (await target.unavailable?.())?.reason ?? null;
    if (reason) console.log(`[stores] ${release.id} skipped: ${reason}`);
    return { ...release, target, reason };
  }),
);

// agmi's row: langgraph-checkpoint-postgres 3.1.2, all nine accepted (it ran PostgreSQL 16 in Docker; this runs the
// installed PostgreSQL, or the server STALEBENCH_POSTGRES_URI names, and the description says which).
describe('langgraph-postgres (PostgresSaver through the store driver)', () => {
  for (const { id, version, target, reason } of targets)
    it.skipIf(reason !== null)(
      `${id}: langgraph-checkpoint-postgres ${version}, every edit T1–T9 accepted, C1–C3 holding, raw edits through psql`,
      async () => {
        const described = await target.describe();
        expect(described.versions['langgraph-checkpoint-postgres']).toBe(version);
        expect(described.versions.PostgreSQL).toMatch(/^\d+\.\d+/);
        expect(described.label).toBe(
          `LangGraph PostgresSaver (langgraph-checkpoint-postgres ${version}) on PostgreSQL ${described.versions.PostgreSQL}`,
        );
        console.log(`[stores] ${id} ran on ${described.store}`);
        const { row, result } = await measuredRow(
          target,
          ALL_EDITS.map((edit) => ({ edit, variant: null })),
        );
        expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
        expect(allControlsHeld(result)).toBe(true);
        // T1 changed the number inside the JSONB checkpoint and the saver served it; T9 restored a copied database.
        expect(result.cells[0]?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
        expect(result.cells[0]?.commands[0]).toMatch(
          /^psql sb_langgraph_postgres\w*_t1_\w+ "UPDATE checkpoints SET checkpoint = \?/,
        );
        expect(result.cells[8]?.commands.join('\n')).toMatch(/CREATE DATABASE "(sb_\w+)" TEMPLATE "\1_snapshot"/);
        // Every cell dropped its database (and T9 its copy) on the server the target used.
        const server = await postgresServer(process.env);
        expect(
          runPsql(server.bin, server.uri, "SELECT datname FROM pg_database WHERE datname LIKE 'sb\\_langgraph%';\n"),
        ).toBe('');
      },
      300_000,
    );
});
