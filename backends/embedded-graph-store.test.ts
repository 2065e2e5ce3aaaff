import { describe, expect, it } from 'vitest';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { EntityEdge } from './graph-store.js';
import { runGraphStoreConformance } from './graph-store.conformance.js';

// The same contract checks the Neo4j store passes against a real server.
runGraphStoreConformance({ name: 'embedded', create: () => createEmbeddedGraphStore() });

const T0 = new Date('2026-01-01T00:00:00.000Z');
const edge = (uuid: string, vector: number[]): EntityEdge => ({
  uuid,
  group_id: 'g1',
  source_node_uuid: 's',
  target_node_uuid: 't',
  name: 'R',
  fact: uuid,
  fact_embedding: vector,
  episodes: [],
  created_at: T0,
  valid_at: T0,
  invalid_at: null,
  expired_at: null,
  reference_time: null,
});

describe('embedded graph store only', () => {
  it('excludes a score of exactly 0.6 at the 0.6 gate (double precision; Neo4j computes in float32 and may let it through)', async () => {
    const store = createEmbeddedGraphStore();
    await store.open();
    const node = { name: 'n', group_id: 'g1', created_at: T0, summary: '', name_embedding: null };
    await store.saveNodes([
      { uuid: 's', ...node },
      { uuid: 't', ...node },
    ]);
    await store.saveEdges([edge('gate', [1, 4, 2, 2]), edge('best', [2, 0, 0, 0])]);
    const hits = await store.searchEdgesBySimilarity({
      vector: [1, 0, 0, 0],
      groupIds: ['g1'],
      limit: 10,
      minScore: 0.6,
    });
    expect(hits.map((hit) => hit.edge.uuid)).toEqual(['best']);
    await store.close();
  });
});
