// Graphiti (graphiti-core 0.31.2) on a GraphStore: the paper's direct seeding, add_episode, default search().
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { EntityEdge, EntityNode, EpisodicNode } from './graph-model.js';
import type { GraphStore } from './graph-store.js';
import { addEpisode } from './graphiti-add-episode.js';
import { resolveEntities } from './graphiti-entity-resolution.js';
import { groupId, normalizeExact, sequencedUuid } from './graphiti-ids.js';
import { hybridEdgeSearch } from './graphiti-search.js';
import { GRAPHITI_CORE_LABEL } from './graphiti-version.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';
import { createGraphitiProvenance, GRAPHITI_PROVENANCE } from './graphiti-provenance.js';
import type {
  BackendSettings,
  InsertReport,
  MemoryBackend,
  MemoryRecord,
  MemoryWrites,
  RecordedWarning,
  SearchRequest,
} from './memory-backend.js';
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
// SearchFilters.property_filters is declared but never read (memory-systems.md §2.4; still so in 0.31.2).
const NO_METADATA = `edges keep no caller metadata here, and SearchFilters.property_filters is declared but never read (${GRAPHITI_CORE_LABEL})`;

/**
 * Creates the `graphiti` backend. A namespace is a Graphiti group id prefixed with the run id. Direct writes
 * follow stale-retrieval.md §3.1 through `EntityNode.save` / `EntityEdge.save`: two `Entity` nodes `Policy subject`
 * → `Policy rule` per group (found by name when the group has them, whoever wrote them), then one `RELATES_TO`
 * edge per fact, with no LLM call. Natural writes run `add_episode` per episode, in order, with
 * `settings.extraction` as the LLM: Graphiti's own resolution decides what is revoked (memory-systems.md §2.2), so
 * revocation may be partial or absent. `search` is `Graphiti.search(query, group_ids=[group], num_results=limit,
 * search_filter)`; `listRecords` reads every edge of the group from the engine. Nothing of stalebench's is stored
 * in the graph: the only bookkeeping, the per-group count behind direct edge uuids and the provenance of journals
 * written with `derivedFrom` (graphiti-provenance.ts), lives in this process.
 *
 * @example
 * const backend = createGraphitiBackend({ embedder: createLexicalEmbedder(), runId: 'r1', workDir: '/tmp/r1', extraction });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'natural', episodes: episodesFor(scenario, now) } });
 * const { records } = await backend.search({ namespace: 'mfa_waiver_access', query, limit: 10 });
 */
export function createGraphitiBackend(settings: GraphitiSettings): MemoryBackend {
  const { embedder, runId, extraction } = settings;
  const store = settings.store ?? createEmbeddedGraphStore();
  const ownsStore = settings.store === undefined;
  const edgesWritten = new Map<string, number>(); // per group: the write counter at the head of new edge uuids
  const nextEdgeUuid =
    (group: string) =>
    (...parts: string[]): string => {
      const sequence = edgesWritten.get(group) ?? 0;
      edgesWritten.set(group, sequence + 1);
      return sequencedUuid(sequence, group, ...parts, String(sequence));
    };
  const provenance = createGraphitiProvenance(store);
  let opened = false;
  let recipeLimit: number | undefined; // EDGE_HYBRID_SEARCH_RRF.limit as the last search() left it (graphiti-add-episode.ts)

  const groupOf = (namespace: string): string => {
    if (!opened) throw new EvalError('backend-not-open', 'graphiti: call open() before using the backend');
    return groupId(runId, namespace);
  };

  const policyNodes = async (group: string, now: Date): Promise<EntityNode[]> => {
    const { byName, created } = await resolveEntities(
      { store, embedder },
      group,
      POLICY_NODE_NAMES,
      new Date(now.getTime() - 90 * DAY_MS),
    );
    if (created.length > 0) await store.saveNodes(created);
    return POLICY_NODE_NAMES.flatMap((name) => byName.get(normalizeExact(name)) ?? []);
  };

  const insertDirect = async (
    group: string,
    now: Date,
    writes: Extract<MemoryWrites, { mode: 'direct' }>,
    derivedFrom: readonly string[] | undefined,
  ): Promise<InsertReport> => {
    const [subject, rule] = await policyNodes(group, now);
    const relation = writes.relation ?? 'POLICY';
    const facts = [
      ...writes.revoked.map((fact) => ({ fact, revoked: true })),
      ...writes.current.map((fact) => ({ fact, revoked: false })),
    ];
    // Graphiti's EntityEdge.generate_embedding embeds the fact with newlines replaced by spaces.
    const vectors = await embedder.embed(facts.map(({ fact }) => fact.replace(/\n/g, ' ')));
    const past = new Date(now.getTime() - 90 * DAY_MS);
    const yesterday = new Date(now.getTime() - DAY_MS);
    const newUuid = nextEdgeUuid(group);
    const edges: EntityEdge[] = facts.map(({ fact, revoked }, index) => ({
      uuid: newUuid(relation, fact),
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
      reference_time: null,
    }));
    await store.saveEdges(edges);
    if (derivedFrom !== undefined) provenance.record(group, edges, derivedFrom);
    return { stored: edges.length, extractor: 'none', warnings: [] };
  };

  const insertNatural = async (
    group: string,
    now: Date,
    writes: Extract<MemoryWrites, { mode: 'natural' }>,
  ): Promise<InsertReport> => {
    const warnings: RecordedWarning[] = [];
    for (const episode of writes.episodes) {
      const result = await addEpisode(
        { store, embedder, extraction, newEdgeUuid: nextEdgeUuid(group) },
        {
          group,
          episode,
          source: settings.episodeSource ?? 'text',
          now,
          ...(recipeLimit === undefined ? {} : { candidateLimit: recipeLimit }),
        },
      );
      warnings.push(...result.warnings);
    }
    return { stored: (await store.getEdgesByGroup(group)).length, extractor: extraction.id, warnings };
  };

  return {
    id: 'graphiti',
    description: {
      summary: `Graphiti (${GRAPHITI_CORE_LABEL}) on the ${store.id} graph store: direct seeding of pre-revoked EntityEdges; natural seeding by add_episode with ${extraction.id}; default read search() = EDGE_HYBRID_SEARCH_RRF (BM25 + cosine > 0.6, RRF)`,
      modes: { direct: { supported: true }, natural: { supported: true } },
      exposure: { rule: 'status', field: 'expired_at' },
      storeFilter: { expired_at: [[{ operator: 'IS NULL' }]] },
      statusFields: ['expired_at', 'invalid_at', 'valid_at'],
      independentNamespaces: store.statisticsScope === 'group',
      provenance: GRAPHITI_PROVENANCE,
    },
    async open() {
      await store.open();
      opened = true;
    },
    async insert(request) {
      const { namespace, now, writes } = request;
      const group = groupOf(namespace);
      provenance.check(request);
      const report =
        writes.mode === 'natural'
          ? await insertNatural(group, now, writes)
          : await insertDirect(group, now, writes, request.derivedFrom);
      return { ...report, warnings: [...report.warnings, ...unstoredMetadataWarnings(request, NO_METADATA)] };
    },
    async search(request: SearchRequest) {
      const groupIds = [groupOf(request.namespace)];
      refuseMetadataFilter('graphiti', request, NO_METADATA);
      const filter = request.filter === undefined ? undefined : supportedFilter(request.filter);
      recipeLimit = request.limit;
      // A taint read resolves provenance first; the filtered read keeps out tainted edges as SearchFilters.edge_uuids.
      const taint = request.taint === true ? await provenance.resolve(groupIds[0]!) : null;
      const edges = await hybridEdgeSearch(store, embedder, {
        query: request.query,
        groupIds,
        limit: request.limit,
        ...(filter ? { filter } : {}),
        ...(taint && filter ? { edgeUuids: taint.untainted } : {}),
      });
      return { records: edges.map((edge) => taint?.annotate(toRecord(edge)) ?? toRecord(edge)), warnings: [] };
    },
    async listRecords(namespace) {
      const edges = await store.getEdgesByGroup(groupOf(namespace));
      return edges.map((edge) => ({ record: toRecord(edge), revoked: edge.expired_at !== null }));
    },
    async unrevoke(namespace) {
      // The at-rest edit of `T8:unrevoke`, through the engine's property write (Cypher SET on Neo4j), below Graphiti.
      const revoked = (await store.getEdgesByGroup(groupOf(namespace))).filter(
        (edge) => edge.expired_at !== null || edge.invalid_at !== null,
      );
      await store.saveEdges(revoked.map((edge) => ({ ...edge, expired_at: null, invalid_at: null })));
      return {
        edit: 'unrevoke',
        records: revoked.length,
        how: `expired_at and invalid_at cleared on the ${store.id} graph store's edges, nothing else`,
      };
    },
    async reset(namespace) {
      const group = groupOf(namespace);
      await store.deleteGroup(group);
      edgesWritten.delete(group);
      provenance.forget(group);
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
    const reason =
      field === 'expiration_date' ? 'Graphiti edges have no expiration_date (use expired_at or invalid_at)' : undefined;
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
