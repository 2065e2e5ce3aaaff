import { describe, expect, it } from 'vitest';
import type { EntityEdge } from './graph-store.js';
import { resolveEdgeContradictions, resolveExtractedEdge } from './graphiti-edge-resolution.js';
import { createMockExtractionModel } from './test-support/graphiti.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const OLD = new Date('2026-06-03T12:00:00.000Z');
const LATER = new Date('2026-10-01T00:00:00.000Z');

const edge = (uuid: string, fact: string, validAt: Date | null, more: Partial<EntityEdge> = {}): EntityEdge => ({
  uuid,
  group_id: 'g',
  source_node_uuid: 'doc',
  target_node_uuid: 'subject',
  name: 'STATES_POLICY',
  fact,
  fact_embedding: null,
  episodes: ['ep0'],
  created_at: validAt ?? NOW,
  valid_at: validAt,
  invalid_at: null,
  expired_at: null,
  reference_time: null,
  ...more,
});
const contradicts = (...ids: string[]) =>
  createMockExtractionModel({ resolveEdge: { duplicates: [], contradicted: ids } });
const resolve = (
  model: ReturnType<typeof createMockExtractionModel>,
  input: { edge: EntityEdge; related?: EntityEdge[]; existing?: EntityEdge[] },
) => resolveExtractedEdge(model, { related: [], existing: [], episodeUuid: 'ep1', now: NOW, ...input });

describe('graphiti edge resolution (date arithmetic decides, memory-systems.md §2.2)', () => {
  it('old valid_at < new valid_at: the contradicted old edge is invalidated at the new valid_at and expired now', async () => {
    const v1 = edge('v1', 'One reviewer suffices.', OLD);
    const v2 = edge('v2', 'Two reviewers are required.', NOW, { episodes: ['ep1'] });
    const { resolved, invalidated } = await resolve(contradicts('0'), { edge: v2, related: [v1] });
    expect(resolved).toBe(v2);
    expect(invalidated).toEqual([v1]);
    expect(v1).toMatchObject({ invalid_at: NOW, expired_at: NOW });
    expect(v2).toMatchObject({ invalid_at: null, expired_at: null });
  });

  it('the same reference time: the model says "contradicted" but v1 stays valid', async () => {
    const v1 = edge('v1', 'One reviewer suffices.', NOW);
    const v2 = edge('v2', 'Two reviewers are required.', NOW);
    const model = contradicts('0');
    const { invalidated } = await resolve(model, { edge: v2, related: [v1] });
    expect(model.calls.resolveEdge).toHaveLength(1);
    expect(invalidated).toEqual([]);
    expect([v1.expired_at, v1.invalid_at, v2.expired_at]).toEqual([null, null, null]);
  });

  it('a null valid_at on either side invalidates nothing', async () => {
    for (const [old, fresh] of [
      [null, NOW],
      [OLD, null],
    ] as const) {
      const v1 = edge('v1', 'One reviewer suffices.', old);
      const { invalidated } = await resolve(contradicts('0'), {
        edge: edge('v2', 'Two reviewers.', fresh),
        related: [v1],
      });
      expect(invalidated).toEqual([]);
      expect(v1.expired_at).toBeNull();
    }
  });

  it('a contradicted candidate with a later valid_at expires the NEW edge instead', async () => {
    const newer = edge('v3', 'Three reviewers are required.', LATER);
    const older = edge('v1', 'One reviewer suffices.', OLD);
    const v2 = edge('v2', 'Two reviewers are required.', NOW);
    const { resolved, invalidated } = await resolve(contradicts('1', '0'), { edge: v2, existing: [newer, older] });
    expect(resolved).toMatchObject({ uuid: 'v2', invalid_at: LATER, expired_at: NOW });
    expect(newer).toMatchObject({ invalid_at: null, expired_at: null });
    // resolve_edge_contradictions still runs: the older candidate overlaps and is earlier.
    expect(invalidated.map((candidate) => candidate.uuid)).toEqual(['v1']);
  });

  it('a new edge extracted with invalid_at expires at once when candidates exist, and not when none do', async () => {
    const ended = () => edge('v2', 'The waiver ended.', OLD, { invalid_at: NOW });
    const withCandidates = await resolve(contradicts(), {
      edge: ended(),
      existing: [edge('x', 'Unrelated fact.', OLD)],
    });
    expect(withCandidates.resolved.expired_at).toEqual(NOW);
    // resolve_extracted_edge returns early without the expiry step when there is nothing to compare against.
    const model = contradicts();
    const alone = await resolve(model, { edge: ended() });
    expect(alone.resolved.expired_at).toBeNull();
    expect(model.calls.resolveEdge).toEqual([]);
  });

  it('skips candidates whose validity window does not overlap the new edge', () => {
    const endedBefore = edge('a', 'a', OLD, { invalid_at: new Date('2026-07-01T00:00:00.000Z'), expired_at: OLD });
    const startsAfter = edge('b', 'b', OLD);
    const fresh = edge('n', 'n', NOW, { invalid_at: OLD });
    expect(resolveEdgeContradictions(edge('n', 'n', NOW), [endedBefore], NOW)).toEqual([]);
    expect(endedBefore.expired_at).toEqual(OLD);
    expect(resolveEdgeContradictions(fresh, [startsAfter], NOW)).toEqual([]);
  });

  it('merges a duplicate: no new edge, the episode is appended, ids are continuous across both lists', async () => {
    const v1 = edge('v1', 'Two reviewers approve each release.', OLD);
    const other = edge('o', 'Releases ship on Tuesdays.', OLD, { source_node_uuid: 'x' });
    const model = createMockExtractionModel({ resolveEdge: { duplicates: ['0', '1', '7'], contradicted: ['9'] } });
    const { resolved, duplicates, invalidated, warnings } = await resolve(model, {
      edge: edge('v2', 'Each release needs two reviewers.', NOW),
      related: [v1],
      existing: [other],
    });
    expect(model.calls.resolveEdge[0]).toEqual({
      fact: 'Each release needs two reviewers.',
      duplicateCandidates: [{ id: '0', content: v1.fact }],
      invalidationCandidates: [{ id: '1', content: other.fact }],
    });
    expect(resolved).toBe(v1);
    expect(v1.episodes).toEqual(['ep0', 'ep1']);
    expect(duplicates).toEqual([v1]);
    expect(invalidated).toEqual([]);
    expect(warnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining('duplicate ids outside 0..0: 1, 7'),
      expect.stringContaining('contradicted ids outside 0..1: 9'),
    ]);
  });

  it('reuses an edge with the same endpoints and normalised fact without asking the model', async () => {
    const v1 = edge('v1', 'Two  reviewers approve.', OLD);
    const model = contradicts('0');
    const { resolved } = await resolve(model, { edge: edge('v2', 'two reviewers approve.', NOW), related: [v1] });
    expect(resolved).toBe(v1);
    expect(v1.episodes).toEqual(['ep0', 'ep1']);
    expect(model.calls.resolveEdge).toEqual([]);
  });
});
