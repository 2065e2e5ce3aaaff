// Acceptance of issue #17 on a real eval: `pnpm eval --modes natural --engine neo4j` leaves, right before each wipe,
// Episodic nodes and MENTIONS edges that graphiti-core 0.31.2 loads, and no stalebench property on Graphiti's graph.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { main } from '../pipeline/cli/cli.js';
import type { Neo4jGraphStoreSettings } from './neo4j-graph-store.js';
import { setupGraphitiInterop, stalebenchProperties, type InteropRead } from './test-support/graphiti-interop.js';
import type { ProvidedNeo4jServer } from './test-support/neo4j-global-setup.js';

/** What graphiti-core read in a group right before the eval wiped it. */
const beforeWipe: { group: string; read: InteropRead | { error: string }; stalebench: string[] }[] = [];
let inspect: ((group: string) => Promise<void>) | null = null;

// The eval's own Neo4j store, with a look (by graphiti-core) at each group before the eval deletes it.
vi.mock('./neo4j-graph-store.js', async (original) => {
  const actual = await original<typeof import('./neo4j-graph-store.js')>();
  return {
    ...actual,
    createNeo4jGraphStore: (settings: Neo4jGraphStoreSettings) => {
      const store = actual.createNeo4jGraphStore(settings);
      return Object.assign(Object.create(store) as typeof store, {
        deleteGroup: async (group: string) => {
          // A unit also resets its namespace before seeding it: only a group that holds something is looked at.
          if (inspect && beforeWipe.length < 4 && (await store.getEdgesByGroup(group)).length > 0) await inspect(group);
          return store.deleteGroup(group);
        },
      });
    },
  };
});

const provided: ProvidedNeo4jServer | undefined = inject('neo4j');
const server = provided ? { uri: provided.uri, user: provided.user, password: provided.password } : undefined;
const interop = server ? await setupGraphitiInterop() : { skip: 'no Neo4j server (run pnpm run test:neo4j)' };
if ('skip' in interop) console.log(`[graphiti interop (eval)] skipped: ${interop.skip}`);

describe.skipIf('skip' in interop)(
  'pnpm eval --model sim --modes natural --engine neo4j (issue #17 acceptance)',
  () => {
    it('leaves Episodic nodes and MENTIONS edges graphiti-core loads, and no stalebench_* property, before each wipe', async () => {
      if ('skip' in interop) return;
      inspect = async (group) => {
        const [read] = await interop.run({ neo4j: server!, embeddings: {}, steps: [{ op: 'read', group }] });
        beforeWipe.push({ group, read: read as InteropRead, stalebench: await stalebenchProperties(server!) });
      };
      const env = {
        NEO4J_URI: server!.uri,
        NEO4J_USER: server!.user ?? 'neo4j',
        NEO4J_PASSWORD: server!.password ?? '',
      };
      vi.spyOn(console, 'log').mockImplementation(() => {});
      vi.spyOn(console, 'error').mockImplementation(() => {});
      const code = await main(
        [
          'eval',
          '--model',
          'sim',
          '--systems',
          'graphiti,zep-ce',
          '--modes',
          'natural',
          '--arms',
          'none',
          '--trials',
          '1',
          '--engine',
          'neo4j',
          '--out',
          mkdtempSync(join(tmpdir(), 'stalebench-natural-')),
        ],
        env,
      );
      vi.restoreAllMocks();
      inspect = null;
      expect(code).toBe(0);
      expect(beforeWipe.length).toBe(4);
      for (const { group, read, stalebench } of beforeWipe) {
        expect({ group, read }).not.toHaveProperty('read.error');
        const loaded = read as InteropRead;
        expect({
          group,
          episodes: loaded.episodes.length,
          mentions: loaded.mentions.length > 0,
          edges: loaded.edges.length > 0,
        }).toEqual({ group, episodes: 2, mentions: true, edges: true });
        expect(
          loaded.edges
            .flatMap((edge) => edge.episodes)
            .every((uuid) => loaded.episodes.some((episode) => episode.uuid === uuid)),
        ).toBe(true);
        expect(stalebench).toEqual([]);
      }
      console.log(
        `[graphiti interop (eval)] before the wipe graphiti-core loaded ${beforeWipe
          .map(({ read }) => {
            const r = read as InteropRead;
            return `${r.episodes.length} episodes / ${r.mentions.length} MENTIONS / ${r.edges.length} edges`;
          })
          .join('; ')}`,
      );
    }, 300_000);
  },
);
