// Graphiti's add_episode (graphiti.py @ 993e081a) on a GraphitiStore: extract edges, resolve entities and edges, save.
import type { Embedder } from './embedder.js';
import type { ExtractionModel } from './extraction-model.js';
import type { EntityEdge, EntityNode } from './graph-store.js';
import { resolveExtractedEdge } from './graphiti-edge-resolution.js';
import type { EpisodicNode, GraphitiStore } from './graphiti-episode-store.js';
import { entityUuid, normalizeExact, stableUuid } from './graphiti-ids.js';
import { hybridEdgeSearch } from './graphiti-search.js';
import type { Episode, RecordedWarning } from './memory-backend.js';

// graphiti_core/search/search_utils.py RELEVANT_SCHEMA_LIMIT (previous episodes); search_config.py DEFAULT_SEARCH_LIMIT.
const PREVIOUS_EPISODES = 10;
const CANDIDATE_LIMIT = 10;

/** The clients add_episode uses. */
export interface AddEpisodeContext {
  store: GraphitiStore;
  embedder: Embedder;
  extraction: ExtractionModel;
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
}

/** What add_episode wrote (Graphiti `AddEpisodeResults`, reduced). */
export interface AddEpisodeResult {
  /** The saved Episodic node. */
  episode: EpisodicNode;
  /** Every edge saved: resolved edges (new or merged duplicates), then the edges they invalidated. */
  edges: EntityEdge[];
  /** The edges this episode invalidated. */
  invalidated: EntityEdge[];
  /** Model answers that could not be used as given. */
  warnings: RecordedWarning[];
}

/**
 * Ingests one episode. Candidates are found against the graph as it was before this episode (Graphiti
 * resolves an episode's edges in parallel and saves them together). Entities resolve by exact normalised
 * name within the group; Graphiti's later fuzzy and LLM node-dedup steps, MENTIONS edges, entity summaries
 * and the separate timestamp-extraction call (for edges extracted without dates) are not modelled.
 *
 * @example
 * const { invalidated } = await addEpisode({ store, embedder, extraction }, { group, episode, source: 'text', now });
 */
export async function addEpisode(context: AddEpisodeContext, input: AddEpisodeInput): Promise<AddEpisodeResult> {
  const { store, embedder, extraction } = context;
  const { group, episode, source, now } = input;
  const previous = await store.retrieveEpisodes({ groupIds: [group], referenceTime: episode.referenceTime, lastN: PREVIOUS_EPISODES, source });
  const episodic: EpisodicNode = {
    uuid: stableUuid(group, 'Episodic', episode.name, episode.text, episode.referenceTime.toISOString(), now.toISOString()),
    name: episode.name,
    group_id: group,
    source,
    source_description: episode.sourceDescription,
    content: episode.text,
    entity_edges: [],
    created_at: now,
    valid_at: episode.referenceTime,
  };
  const extracted = await extraction.extractEdges({
    episode: episode.text, referenceTime: episode.referenceTime, previousEpisodes: previous.map((earlier) => earlier.content),
  });

  const seen = new Set<string>();
  const drafts = extracted.flatMap((draft, index) => {
    const sourceUuid = entityUuid(group, draft.source);
    const targetUuid = entityUuid(group, draft.target);
    const key = [sourceUuid, targetUuid, normalizeExact(draft.fact)].join('\u0000');
    // Graphiti drops empty facts and self-edges, and keeps one of several identical extracted triples.
    if (draft.fact.trim() === '' || sourceUuid === targetUuid || seen.has(key)) return [];
    seen.add(key);
    return [{ draft, index, sourceUuid, targetUuid }];
  });
  const nodes = await resolveEntities(context, group, drafts.flatMap(({ draft }) => [draft.source, draft.target]), now);
  const vectors = await embedder.embed(drafts.map(({ draft }) => draft.fact.replace(/\n/g, ' ')));

  const resolved: EntityEdge[] = [];
  const invalidated: EntityEdge[] = [];
  const warnings: RecordedWarning[] = [];
  for (const [position, { draft, index, sourceUuid, targetUuid }] of drafts.entries()) {
    const vector = vectors[position] ?? null;
    const edge: EntityEdge = {
      uuid: stableUuid(episodic.uuid, 'RELATES_TO', String(index)),
      group_id: group,
      source_node_uuid: sourceUuid,
      target_node_uuid: targetUuid,
      name: draft.relation,
      fact: draft.fact,
      fact_embedding: vector,
      episodes: [episodic.uuid],
      created_at: now,
      valid_at: draft.validAt,
      invalid_at: draft.invalidAt,
      expired_at: null,
    };
    const search = { query: edge.fact, groupIds: [group], limit: CANDIDATE_LIMIT, ...(vector ? { vector } : {}) };
    const between = await store.getEdgesBetweenNodes(sourceUuid, targetUuid);
    const related = await hybridEdgeSearch(store, embedder, { ...search, edgeUuids: between.map((candidate) => candidate.uuid) });
    const relatedUuids = new Set(related.map((candidate) => candidate.uuid));
    // Invalidation candidates: the same search over the whole group with no filter (getzep/graphiti#1728).
    const existing = (await hybridEdgeSearch(store, embedder, search)).filter((candidate) => !relatedUuids.has(candidate.uuid));
    const resolution = await resolveExtractedEdge(extraction, { edge, related, existing, episodeUuid: episodic.uuid, now });
    resolved.push(resolution.resolved);
    invalidated.push(...resolution.invalidated);
    warnings.push(...resolution.warnings);
  }

  const edges = [...resolved, ...invalidated];
  await store.saveNodes(nodes.created);
  await store.saveEdges(edges);
  episodic.entity_edges = [...new Set(edges.map((edge) => edge.uuid))];
  await store.saveEpisodes([episodic]);
  return { episode: episodic, edges, invalidated, warnings };
}

/** Reuses the group's Entity of the same normalised name, else creates it (name embedding, empty summary). */
async function resolveEntities(context: AddEpisodeContext, group: string, names: readonly string[], now: Date): Promise<{ created: EntityNode[] }> {
  const byUuid = new Map<string, string>();
  for (const name of names) if (!byUuid.has(entityUuid(group, name))) byUuid.set(entityUuid(group, name), name);
  const existing = new Set((await context.store.getNodesByUuids([...byUuid.keys()])).map((node) => node.uuid));
  const missing = [...byUuid].filter(([uuid]) => !existing.has(uuid));
  const embeddings = missing.length > 0 ? await context.embedder.embed(missing.map(([, name]) => name.replace(/\n/g, ' '))) : [];
  const created = missing.map(([uuid, name], index) => ({
    uuid, name, group_id: group, created_at: now, summary: '', name_embedding: embeddings[index] ?? null,
  }));
  return { created };
}
