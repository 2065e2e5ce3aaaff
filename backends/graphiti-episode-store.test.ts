import { describe, expect, it } from 'vitest';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { EntityEdge } from './graph-store.js';
import { isGraphitiStore, withGraphitiOperations, type EpisodicNode } from './graphiti-episode-store.js';

const day = (n: number) => new Date(Date.UTC(2026, 0, n));
const episode = (uuid: string, validAt: Date, more: Partial<EpisodicNode> = {}): EpisodicNode => ({
  uuid, name: uuid, group_id: 'g', source: 'text', source_description: '', content: uuid, entity_edges: [], created_at: validAt, valid_at: validAt, ...more,
});
const node = (uuid: string, group = 'g') => ({ uuid, name: uuid, group_id: group, created_at: day(1), summary: '', name_embedding: null });
const edge = (uuid: string, source: string, target: string, group = 'g'): EntityEdge => ({
  uuid, group_id: group, source_node_uuid: source, target_node_uuid: target, name: 'R', fact: uuid, fact_embedding: null,
  episodes: [], created_at: day(1), valid_at: day(1), invalid_at: null, expired_at: null,
});

describe('withGraphitiOperations', () => {
  it('retrieves the last n episodes up to the reference time, oldest first, by group and source', async () => {
    const store = withGraphitiOperations(createEmbeddedGraphStore());
    await store.saveEpisodes([episode('c', day(3)), episode('a', day(1)), episode('b', day(2)), episode('m', day(2), { source: 'message' }), episode('o', day(1), { group_id: 'other' })]);
    const uuids = async (window: Parameters<typeof store.retrieveEpisodes>[0]) => (await store.retrieveEpisodes(window)).map((e) => e.uuid);
    expect(await uuids({ groupIds: ['g'], referenceTime: day(2), lastN: 10, source: 'text' })).toEqual(['a', 'b']);
    expect(await uuids({ groupIds: ['g'], referenceTime: day(3), lastN: 2, source: 'text' })).toEqual(['b', 'c']);
    expect(await uuids({ groupIds: ['g'], referenceTime: day(9), lastN: 10, source: 'message' })).toEqual(['m']);
  });

  it('finds edges between two nodes (directed), by uuid and by group, and forgets a deleted group', async () => {
    const store = withGraphitiOperations(createEmbeddedGraphStore());
    await store.saveNodes([node('s'), node('t'), node('x', 'h'), node('y', 'h')]);
    await store.saveEdges([edge('e1', 's', 't'), edge('e2', 't', 's'), edge('e3', 's', 't'), edge('f1', 'x', 'y', 'h')]);
    await store.saveEpisodes([episode('ep', day(1))]);
    expect((await store.getEdgesBetweenNodes('s', 't')).map((e) => e.uuid)).toEqual(['e1', 'e3']);
    expect((await store.getEdgesByUuids(['e3', 'nope', 'e1'])).map((e) => e.uuid)).toEqual(['e3', 'e1']);
    await store.deleteGroup('g');
    expect(await store.getEdgesByGroup('g')).toEqual([]);
    expect(await store.retrieveEpisodes({ groupIds: ['g'], referenceTime: day(9), lastN: 10 })).toEqual([]);
    expect((await store.getEdgesByGroup('h')).map((e) => e.uuid)).toEqual(['f1']);
  });

  it('shares one index between wrappers of the same store and returns a full store unchanged', async () => {
    const inner = createEmbeddedGraphStore();
    const first = withGraphitiOperations(inner);
    const second = withGraphitiOperations(inner);
    await first.saveNodes([node('s'), node('t')]);
    await first.saveEdges([edge('e1', 's', 't')]);
    expect((await second.getEdgesByGroup('g')).map((e) => e.uuid)).toEqual(['e1']);
    expect(isGraphitiStore(inner)).toBe(false);
    expect(withGraphitiOperations(first)).toBe(first);
  });
});
