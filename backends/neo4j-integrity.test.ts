import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { ALL_EDITS } from '../pipeline/suites/integrity/harness/edits.js';
import { main } from '../pipeline/suites/integrity/harness/integrity-command.js';
import { createGraphitiNeo4jTarget } from '../pipeline/suites/integrity/targets/graphiti-neo4j-target.js';
import { allControlsHeld, measuredRow } from '../pipeline/suites/integrity/targets/measured-row.js';
import type { ProvidedNeo4jServer } from './test-support/neo4j-global-setup.js';

// The server comes from backends/test-support/neo4j-global-setup.ts (NEO4J_URI, or one it started through Maven).
const provided: ProvidedNeo4jServer | undefined = inject('neo4j');
const env = provided
  ? { NEO4J_URI: provided.uri, NEO4J_USER: provided.user, NEO4J_PASSWORD: provided.password }
  : undefined;

if (env === undefined) {
  it.skip('graphiti@neo4j integrity target (skipped: no Neo4j server; run pnpm run test:neo4j)', () => {});
} else {
  describe('graphiti@neo4j integrity target (our Graphiti port on a real Neo4j, edits by Cypher)', () => {
    it('every edit is served: T1–T9 accepted, C1–C3 holding, T8:unrevoke removes expired_at and invalid_at only; nothing left behind', async () => {
      const target = createGraphitiNeo4jTarget(env);
      expect(await target.unavailable?.()).toBeNull();
      const description = await target.describe();
      expect(description.label).toMatch(/^Graphiti \(model\): .* on Neo4j 5\./);
      const edits = [
        ...ALL_EDITS.slice(0, 8).map((edit) => ({ edit, variant: null as 'unrevoke' | null })),
        { edit: 'T8' as const, variant: 'unrevoke' as const },
        { edit: 'T9' as const, variant: null },
      ];
      const { row, result } = await measuredRow(target, edits);
      expect(row).toEqual([
        ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} accepted`),
        'T8:unrevoke accepted',
        'T9 accepted',
      ]);
      expect(allControlsHeld(result)).toBe(true);
      const commands = result.cells.flatMap((cell) => cell.commands).join('\n');
      expect(commands).toContain('cypher-shell "MATCH ()-[e:RELATES_TO {uuid: $uuid}]->() SET e.fact = $fact"');
      expect(commands).toContain('REMOVE e.expired_at, e.invalid_at');
      expect(result.cells.find((cell) => cell.edit === 'T9')?.controls.c3.detail).toContain(
        'the store equals the snapshot (10 records)',
      );
      const neo4j = (await import('neo4j-driver')).default;
      const driver = neo4j.driver(
        env.NEO4J_URI,
        env.NEO4J_USER ? neo4j.auth.basic(env.NEO4J_USER, env.NEO4J_PASSWORD ?? '') : undefined,
      );
      try {
        const left = await driver.executeQuery(
          "MATCH (n) WHERE n.group_id STARTS WITH 'graphiti_neo4j' RETURN count(n) AS count",
        );
        expect(Number(left.records[0]?.get('count'))).toBe(0); // every cell deleted its groups
      } finally {
        await driver.close();
      }
    }, 180_000);

    it('graphiti+ledger@neo4j: the revocation ledger rejects the un-revoke at read (and T1), C1–C3 holding; a label it does not bind passes', async () => {
      const target = createGraphitiNeo4jTarget(env, { ledger: true });
      expect(target.id).toBe('graphiti+ledger@neo4j');
      const { row, result } = await measuredRow(target, [
        { edit: 'T1', variant: null },
        { edit: 'T8', variant: null },
        { edit: 'T8', variant: 'unrevoke' },
      ]);
      expect(row).toEqual(['T1 rejected/read', 'T8 accepted', 'T8:unrevoke rejected/read']);
      expect(allControlsHeld(result)).toBe(true);
      const unrevoke = result.cells.find((cell) => cell.variant === 'unrevoke');
      expect(unrevoke?.commands.join('\n')).toContain('REMOVE e.expired_at, e.invalid_at');
      expect(unrevoke?.reason).toMatch(/revocation ledger: status not bound: the store serves it as current/);
    }, 120_000);

    it('pnpm integrity --target graphiti@neo4j reads the server from NEO4J_URI and exits 1 (ACCEPTED present)', async () => {
      const out: string[] = [];
      const code = await main(
        [
          '--target',
          'graphiti@neo4j',
          '--edits',
          'T1',
          '--json',
          '-o',
          join(tmpdir(), `neo4j-integrity-${process.pid}`),
        ],
        { write: (chunk: string) => out.push(chunk) },
        { write: () => true },
        env,
      );
      expect(code).toBe(1);
      expect(JSON.parse(out.join('')).targets[0].cells[0]).toMatchObject({
        edit: 'T1',
        verdict: 'accepted',
        controls: { c3: { ok: true } },
      });
    }, 60_000);
  });
}
