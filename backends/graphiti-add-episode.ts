// Graphiti's add_episode (graphiti-core 0.31.2, graphiti.py) on a GraphStore: extract, resolve entities and edges, save.
import type { Embedder } from './embedder.js';
import type { ExtractionModel } from './extraction-model.js';
import type { EntityEdge, EpisodicEdge, EpisodicNode } from './graph-model.js';
import type { GraphStore } from './graph-store.js';
import { resolveExtractedEdge } from './graphiti-edge-resolution.js';
import { resolveEntities } from './graphiti-entity-resolution.js';
import { normalizeExact, stableUuid } from './graphiti-ids.js';
import { hybridEdgeSearch } from './graphiti-search.js';
import { normalizeFutureTemporalBounds } from './graphiti-temporal.js';
import type { Episode, RecordedWarning } from './memory-backend.js';

// graphiti_core/search/search_utils.py RELEVANT_SCHEMA_LIMIT (previous episodes); search_config.py DEFAULT_SEARCH_LIMIT.
const PREVIOUS_EPISODES = 10;
const CANDIDATE_LIMIT = 10;

/** The clients add_episode uses. */
export interface AddEpisodeContext {
  store: GraphStore;
  embedder: Embedder;
  extraction: ExtractionModel;
  /** Uuid of each new edge, in creation order (default `stableUuid` of the parts; the backend prefixes a write counter). */
  newEdgeUuid?: (...parts: string[]) => string;
}

/** One add_episode call. */
export interface AddEpisodeInput {
  /** The group id (already validated). */
  group: string;
  /** Name, body, reference time and source description. */
  episode: Episode;
  /** Episode type: `text` for the paper's Graphiti probe, `message` for Zep CE's sidecar. */
  source: EpisodicNode['source'];
  /** System time of the call: `created_at` of what it writes, `expired_at` of what it retires. */
  now: Date;
  /**
   * `limit` of the candidate searches: EDGE_HYBRID_SEARCH_RRF's, which `Graphiti.search` overwrites with its last
   * `num_results` (the recipe object is shared), so a read with k = 5 makes later ingestion see 5 candidates. Default 10.
   */
  candidateLimit?: number;
}

/** What add_episode wrote (Graphiti `AddEpisodeResults`, reduced). */
export interface AddEpisodeResult {
  /** The saved Episodic node. */
  episode: EpisodicNode;
  /** Every edge saved: resolved edges (new or merged duplicates), then the edges they invalidated. */
  edges: EntityEdge[];
  /** The edges this episode invalidated. */
  invalidated: EntityEdge[];
  /** The MENTIONS edges saved (one per entity the episode's edges name). */
  mentions: EpisodicEdge[];
  /** Model answers that could not be used as given. */
  warnings: RecordedWarning[];
}

/**
 * Ingests one episode and saves it as graphiti-core does, in one `saveEpisodeData`: the Episodic node, the new
 * entities, one MENTIONS edge per entity, the edges. Entities resolve by exact-normalised name against the group
 * in the engine (graphiti-entity-resolution.ts). Edge candidates are searched against the graph as it was before
 * this episode (Graphiti searches for every edge first, then resolves): duplicate candidates among the edges
 * between the same two entities in either direction (Graphiti's endpoint filter), invalidation candidates in the
 * whole group. Not modelled: entity extraction separate from edges, entity summaries and attributes, the
 * timestamp-extraction call for undated edges (graphiti-port.md).
 *
 * @example
 * const { invalidated } = await addEpisode({ store, embedder, extraction }, { group, episode, source: 'text', now });
 */
export async function addEpisode(context: AddEpisodeContext, input: AddEpisodeInput): Promise<AddEpisodeResult> {
  const { store, embedder, extraction } = context;
  const { group, episode, source, now } = input;
  const previous = await store.retrieveEpisodes({
    groupIds: [group],
    referenceTime: episode.referenceTime,
    lastN: PREVIOUS_EPISODES,
    source,
  });
  const episodic: EpisodicNode = {
    uuid: stableUuid(
      group,
      'Episodic',
      episode.name,
      episode.text,
      episode.referenceTime.toISOString(),
      now.toISOString(),
    ),
    name: episode.name,
    group_id: group,
    source,
    source_description: episode.sourceDescription,
    content: episode.text,
    entity_edges: [],
    created_at: now,
    valid_at: episode.referenceTime,
  };
  const extracted = (
    await extraction.extractEdges({
      episode: episode.text,
      referenceTime: episode.referenceTime,
      previousEpisodes: previous.map((earlier) => earlier.content),
    })
  )
    .map((draft) => ({ ...draft, source: draft.source.trim(), target: draft.target.trim() }))
    .filter((draft) => draft.source !== '' && draft.target !== '' && draft.fact.trim() !== ''); // extract_edges skips these
  const entities = await resolveEntities(
    context,
    group,
    extracted.flatMap((draft) => [draft.source, draft.target]),
    now,
  );
  const uuidOf = (name: string): string => entities.byName.get(normalizeExact(name))?.uuid ?? '';

  // resolve_extracted_edges' fast path: one of several identical triples, and a reversed one of the same relation.
  const seen = new Map<string, string>();
  const drafts = extracted.flatMap((draft, index) => {
    const [sourceUuid, targetUuid, fact] = [uuidOf(draft.source), uuidOf(draft.target), normalizeExact(draft.fact)];
    const key = [sourceUuid, targetUuid, fact].join('\u0000');
    if (seen.has(key) || seen.get([targetUuid, sourceUuid, fact].join('\u0000')) === draft.relation) return [];
    seen.set(key, draft.relation);
    return [{ draft, index, sourceUuid, targetUuid }];
  });
  const vectors = await embedder.embed(drafts.map(({ draft }) => draft.fact.replace(/\n/g, ' ')));

  const resolved: EntityEdge[] = [];
  const invalidated: EntityEdge[] = [];
  const warnings: RecordedWarning[] = [];
  for (const [position, { draft, index, sourceUuid, targetUuid }] of drafts.entries()) {
    const vector = vectors[position] ?? null;
    const dates = normalizeFutureTemporalBounds(draft.fact, episode.referenceTime, draft.validAt, draft.invalidAt);
    const edge: EntityEdge = {
      uuid: (context.newEdgeUuid ?? stableUuid)(episodic.uuid, 'RELATES_TO', String(index)),
      group_id: group,
      source_node_uuid: sourceUuid,
      target_node_uuid: targetUuid,
      name: draft.relation,
      fact: draft.fact,
      fact_embedding: vector,
      episodes: [episodic.uuid],
      created_at: now,
      valid_at: dates.validAt,
      invalid_at: dates.invalidAt,
      expired_at: null,
      reference_time: episode.referenceTime,
    };
    const search = {
      query: edge.fact,
      groupIds: [group],
      limit: input.candidateLimit ?? CANDIDATE_LIMIT,
      ...(vector ? { vector } : {}),
    };
    // Graphiti filters on n.uuid IN {a, b} AND m.uuid IN {a, b} (self-loops included), then keeps the a–b edges.
    const pair = await endpointEdges(store, sourceUuid, targetUuid);
    const inPair = (candidate: EntityEdge) =>
      new Set([sourceUuid, targetUuid]).size === 1 || candidate.source_node_uuid !== candidate.target_node_uuid;
    const related = (
      await hybridEdgeSearch(store, embedder, { ...search, edgeUuids: pair.map((candidate) => candidate.uuid) })
    ).filter(inPair);
    const relatedUuids = new Set(related.map((candidate) => candidate.uuid));
    // Invalidation candidates: the same search over the whole group with no filter (getzep/graphiti#1728).
    const existing = (await hybridEdgeSearch(store, embedder, search)).filter(
      (candidate) => !relatedUuids.has(candidate.uuid),
    );
    const resolution = await resolveExtractedEdge(extraction, {
      edge,
      related,
      existing,
      episodeUuid: episodic.uuid,
      now,
    });
    resolved.push(resolution.resolved);
    invalidated.push(...resolution.invalidated);
    warnings.push(...resolution.warnings);
  }

  const edges = [...resolved, ...invalidated];
  episodic.entity_edges = edges.map((edge) => edge.uuid);
  const mentioned = [...new Map([...entities.byName.values()].map((node) => [node.uuid, node])).values()];
  const mentions: EpisodicEdge[] = mentioned.map((node) => ({
    uuid: stableUuid(episodic.uuid, 'MENTIONS', node.uuid),
    group_id: node.group_id,
    source_node_uuid: episodic.uuid,
    target_node_uuid: node.uuid,
    created_at: now,
  }));
  await store.saveEpisodeData({ episodes: [episodic], nodes: entities.created, mentions, edges });
  return { episode: episodic, edges, invalidated, mentions, warnings };
}

/** The edges a→b, b→a, a→a and b→b: what Graphiti's endpoint filter `{a, b} × {a, b}` lets through. */
async function endpointEdges(store: GraphStore, a: string, b: string): Promise<EntityEdge[]> {
  const pairs =
    a === b
      ? [[a, a]]
      : [
          [a, b],
          [b, a],
          [a, a],
          [b, b],
        ];
  return (
    await Promise.all(pairs.map(([source = '', target = '']) => store.getEdgesBetweenNodes(source, target)))
  ).flat();
}
