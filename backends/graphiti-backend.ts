// Graphiti (graphiti-core 0.29.3 @ 993e081a) on a GraphStore: the paper's direct seeding, add_episode, default search().
import { EvalError, UnsupportedFeatureError } from '../core/errors.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { EntityEdge, EntityNode, GraphStore } from './graph-store.js';
import { addEpisode } from './graphiti-add-episode.js';
import { withGraphitiOperations, type EpisodicNode } from './graphiti-episode-store.js';
import { entityUuid, groupId, stableUuid } from './graphiti-ids.js';
import { hybridEdgeSearch } from './graphiti-search.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';
import type { BackendSettings, InsertReport, MemoryBackend, MemoryRecord, MemoryWrites, RecordedWarning, SearchRequest } from './memory-backend.js';
import type { MemoryFilter } from './memory-filter.js';

export { groupId } from './graphiti-ids.js';

/** Settings of the Graphiti backend. */
export type GraphitiSettings = BackendSettings & {
  /**
   * Graph engine. Absent: a fresh embedded store that this backend owns (opens and closes). A store passed
   * here is opened but never closed by the backend, so several backends can share it.
   */
  store?: GraphStore;
  /** Graphiti `EpisodeType` of natural-mode episodes: `text` (default, the paper's probe) or `message` (Zep CE). */
  episodeSource?: EpisodicNode['source'];
};

const DAY_MS = 86_400_000;
const POLICY_NODE_NAMES = ['Policy subject', 'Policy rule'] as const;
const FILTER_FIELDS = new Set(['valid_at', 'invalid_at', 'expired_at', 'created_at']);
// graphiti-core 0.29.3: SearchFilters.property_filters is declared but never read (memory-systems.md §2.4).
const NO_METADATA = 'edges keep no caller metadata here, and SearchFilters.property_filters is declared but never read (graphiti-core 0.29.3)';

/**
 * Creates the `graphiti` backend. A namespace is a Graphiti group id prefixed with the run id. Direct writes
 * follow stale-retrieval.md §3.1: two `Entity` nodes `Policy subject` → `Policy rule` per group (created
 * once, reused by later inserts such as write-back journals), then one `RELATES_TO` edge per fact, with no
 * LLM call. Natural writes run `add_episode` per episode, in order, with `settings.extraction` as the LLM:
 * Graphiti's own resolution decides what is revoked (memory-systems.md §2.2), so revocation may be partial
 * or absent. `search` is `Graphiti.search(query, group_ids=[group], num_results=limit, search_filter)`.
 *
 * @example
 * const backend = createGraphitiBackend({ embedder: createLexicalEmbedder(), runId: 'r1', workDir: '/tmp/r1', extraction });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'natural', episodes: episodesFor(scenario, now) } });
 * const { records } = await backend.search({ namespace: 'mfa_waiver_access', query, limit: 10 });
 */
export function createGraphitiBackend(settings: GraphitiSettings): MemoryBackend {
  const { embedder, runId, extraction } = settings;
  const store = withGraphitiOperations(settings.store ?? createEmbeddedGraphStore());
  const ownsStore = settings.store === undefined;
  const edgesWritten = new Map<string, number>(); // per group: the sequence number in direct edge uuids
  let opened = false;

  const groupOf = (namespace: string): string => {
    if (!opened) throw new EvalError('backend-not-open', 'graphiti: call open() before using the backend');
    return groupId(runId, namespace);
  };

  const policyNodes = async (group: string, now: Date): Promise<EntityNode[]> => {
    const uuids = POLICY_NODE_NAMES.map((name) => entityUuid(group, name));
    const existing = await store.getNodesByUuids(uuids);
    if (existing.length === uuids.length) return existing;
    const embeddings = await embedder.embed([...POLICY_NODE_NAMES]);
    const created = POLICY_NODE_NAMES.map((name, index) => ({
      uuid: uuids[index] ?? '',
      name,
      group_id: group,
      created_at: new Date(now.getTime() - 90 * DAY_MS),
      summary: '',
      name_embedding: embeddings[index] ?? null,
    }));
    await store.saveNodes(created);
    return created;
  };

  const insertDirect = async (group: string, now: Date, writes: Extract<MemoryWrites, { mode: 'direct' }>): Promise<InsertReport> => {
    const [subject, rule] = await policyNodes(group, now);
    const relation = writes.relation ?? 'POLICY';
    const facts = [...writes.revoked.map((fact) => ({ fact, revoked: true })), ...writes.current.map((fact) => ({ fact, revoked: false }))];
    // Graphiti's EntityEdge.generate_embedding embeds the fact with newlines replaced by spaces.
    const vectors = await embedder.embed(facts.map(({ fact }) => fact.replace(/\n/g, ' ')));
    const past = new Date(now.getTime() - 90 * DAY_MS);
    const yesterday = new Date(now.getTime() - DAY_MS);
    let sequence = edgesWritten.get(group) ?? 0;
    const edges: EntityEdge[] = facts.map(({ fact, revoked }, index) => ({
      uuid: stableUuid(group, relation, fact, String(sequence++)),
      group_id: group,
      source_node_uuid: subject?.uuid ?? '',
      target_node_uuid: rule?.uuid ?? '',
      name: relation,
      fact,
      fact_embedding: vectors[index] ?? null,
      episodes: [],
      created_at: revoked ? past : now,
      valid_at: revoked ? past : now,
      invalid_at: revoked ? yesterday : null,
      expired_at: revoked ? yesterday : null,
    }));
    await store.saveEdges(edges);
    edgesWritten.set(group, sequence);
    return { stored: edges.length, extractor: 'none', warnings: [] };
  };

  const insertNatural = async (group: string, now: Date, writes: Extract<MemoryWrites, { mode: 'natural' }>): Promise<InsertReport> => {
    const warnings: RecordedWarning[] = [];
    for (const episode of writes.episodes) {
      const result = await addEpisode({ store, embedder, extraction }, { group, episode, source: settings.episodeSource ?? 'text', now });
      warnings.push(...result.warnings);
    }
    return { stored: (await store.getEdgesByGroup(group)).length, extractor: extraction.id, warnings };
  };

  return {
    id: 'graphiti',
    description: {
      summary: `Graphiti 0.29.3 (getzep/graphiti @ 993e081a) on the ${store.id} graph store: direct seeding of pre-revoked EntityEdges; natural seeding by add_episode with ${extraction.id}; default read search() = EDGE_HYBRID_SEARCH_RRF (BM25 + cosine > 0.6, RRF)`,
      modes: { direct: { supported: true }, natural: { supported: true } },
      exposure: { rule: 'status', field: 'expired_at' },
      storeFilter: { expired_at: [[{ operator: 'IS NULL' }]] },
      statusFields: ['expired_at', 'invalid_at', 'valid_at'],
      independentNamespaces: store.statisticsScope === 'group',
    },
    async open() {
      await store.open();
      opened = true;
    },
    async insert(request) {
      const { namespace, now, writes } = request;
      const group = groupOf(namespace);
      const report = writes.mode === 'natural' ? await insertNatural(group, now, writes) : await insertDirect(group, now, writes);
      return { ...report, warnings: [...report.warnings, ...unstoredMetadataWarnings(request, NO_METADATA)] };
    },
    async search(request: SearchRequest) {
      const groupIds = [groupOf(request.namespace)];
      refuseMetadataFilter('graphiti', request, NO_METADATA);
      const filter = request.filter === undefined ? undefined : supportedFilter(request.filter);
      const edges = await hybridEdgeSearch(store, embedder, { query: request.query, groupIds, limit: request.limit, ...(filter ? { filter } : {}) });
      return { records: edges.map(toRecord), warnings: [] };
    },
    async listRecords(namespace) {
      const edges = await store.getEdgesByGroup(groupOf(namespace));
      return edges.map((edge) => ({ record: toRecord(edge), revoked: edge.expired_at !== null }));
    },
    async reset(namespace) {
      const group = groupOf(namespace);
      await store.deleteGroup(group);
      edgesWritten.delete(group);
    },
    exclusive: (work) => store.exclusive(work),
    async close() {
      if (ownsStore && opened) await store.close();
      opened = false;
    },
  };
}

/** Graphiti filters edges on these four date properties only; anything else cannot be applied. */
function supportedFilter(filter: MemoryFilter): MemoryFilter {
  for (const [field, groups] of Object.entries(filter)) {
    if (groups === undefined || FILTER_FIELDS.has(field)) continue;
    const reason = field === 'expiration_date' ? 'Graphiti edges have no expiration_date (use expired_at or invalid_at)' : undefined;
    throw new UnsupportedFeatureError('graphiti', `filter field ${field}`, reason);
  }
  return filter;
}

function toRecord(edge: EntityEdge): MemoryRecord {
  const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
  return {
    id: edge.uuid,
    text: edge.fact,
    fields: {
      fact: edge.fact,
      name: edge.name,
      group_id: edge.group_id,
      source_node_uuid: edge.source_node_uuid,
      target_node_uuid: edge.target_node_uuid,
      created_at: iso(edge.created_at),
      valid_at: iso(edge.valid_at),
      invalid_at: iso(edge.invalid_at),
      expired_at: iso(edge.expired_at),
    },
  };
}
