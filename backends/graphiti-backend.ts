// Graphiti (graphiti-core 0.29.3 @ 993e081a) on a GraphStore: the paper's direct seeding and Graphiti's default search().
import { createHash } from 'node:crypto';
import { EvalError, UnsupportedFeatureError } from '../pipeline/errors.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { EntityEdge, EntityNode, GraphStore } from './graph-store.js';
import type { BackendSettings, MemoryBackend, MemoryRecord, SearchRequest } from './memory-backend.js';
import type { MemoryFilter } from './memory-filter.js';
import { reciprocalRankFusion } from './rank-fusion.js';

/** Settings of the Graphiti backend. */
export type GraphitiSettings = BackendSettings & {
  /**
   * Graph engine. Absent: a fresh embedded store that this backend owns (opens and closes). A store passed
   * here is opened but never closed by the backend, so several backends can share it.
   */
  store?: GraphStore;
};

const DAY_MS = 86_400_000;
// graphiti_core/search/search_utils.py: DEFAULT_MIN_SCORE = 0.6, the EdgeSearchConfig.sim_min_score default.
const SIMILARITY_MIN_SCORE = 0.6;
const POLICY_NODE_NAMES = ['Policy subject', 'Policy rule'] as const;
const PLAIN_PART = /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*$/;
const FILTER_FIELDS = new Set(['valid_at', 'invalid_at', 'expired_at', 'created_at']);
const NATURAL_REASON =
  'graphiti natural seeding (add_episode extraction and invalidation) is not implemented yet; see issue #3';

/**
 * Creates the `graphiti` backend. A namespace is a Graphiti group id prefixed with the run id. Direct writes
 * follow stale-retrieval.md §3.1: two `Entity` nodes `Policy subject` → `Policy rule` per group (created
 * once, reused by later inserts such as write-back journals), then one `RELATES_TO` edge per fact, with no
 * LLM call. `search` is `Graphiti.search(query, group_ids=[group], num_results=limit, search_filter)`.
 *
 * @example
 * const backend = createGraphitiBackend({ embedder: createLexicalEmbedder(), runId: 'r1', workDir: '/tmp/r1' });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 * const { records } = await backend.search({ namespace: 'mfa_waiver_access', query, limit: 10 });
 */
export function createGraphitiBackend(settings: GraphitiSettings): MemoryBackend {
  const { embedder, runId } = settings;
  const store = settings.store ?? createEmbeddedGraphStore();
  const ownsStore = settings.store === undefined;
  const edgesWritten = new Map<string, number>(); // per group: the sequence number in edge uuids
  let opened = false;

  const groupOf = (namespace: string): string => {
    if (!opened) throw new EvalError('backend-not-open', 'graphiti: call open() before using the backend');
    return groupId(runId, namespace);
  };

  const policyNodes = async (group: string, now: Date): Promise<EntityNode[]> => {
    const uuids = POLICY_NODE_NAMES.map((name) => stableUuid(group, 'Entity', name));
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

  return {
    id: 'graphiti',
    description: {
      summary: `Graphiti 0.29.3 (getzep/graphiti @ 993e081a) on the ${store.id} graph store: direct seeding of pre-revoked EntityEdges; default read search() = EDGE_HYBRID_SEARCH_RRF (BM25 + cosine > 0.6, RRF)`,
      modes: { direct: { supported: true }, natural: { supported: false, reason: NATURAL_REASON } },
      exposure: { rule: 'status', field: 'expired_at' },
      storeFilter: { expired_at: [[{ operator: 'IS NULL' }]] },
      statusFields: ['expired_at', 'invalid_at', 'valid_at'],
    },
    async open() {
      await store.open();
      opened = true;
    },
    async insert({ namespace, now, writes }) {
      const group = groupOf(namespace);
      if (writes.mode === 'natural') throw new UnsupportedFeatureError('graphiti', 'natural seeding', NATURAL_REASON);
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
    },
    async search(request: SearchRequest) {
      const groupIds = [groupOf(request.namespace)];
      const filter = request.filter === undefined ? undefined : supportedFilter(request.filter);
      // Graphiti's search() returns nothing for a blank query; LIMIT 0 returns nothing on Neo4j.
      if (request.query.trim() === '' || request.limit <= 0) return { records: [], warnings: [] };
      const [vector = []] = await embedder.embed([request.query.replace(/\n/g, ' ')]);
      const candidates = 2 * request.limit;
      const [fulltext, similar] = await Promise.all([
        store.searchEdgesFulltext({ query: request.query, groupIds, filter, limit: candidates }),
        store.searchEdgesBySimilarity({ vector, groupIds, filter, limit: candidates, minScore: SIMILARITY_MIN_SCORE }),
      ]);
      const byUuid = new Map([...fulltext, ...similar].map((hit) => [hit.edge.uuid, hit.edge]));
      const fused = reciprocalRankFusion([fulltext.map((hit) => hit.edge.uuid), similar.map((hit) => hit.edge.uuid)]);
      const records = fused.slice(0, request.limit).flatMap(({ id }) => {
        const edge = byUuid.get(id);
        return edge ? [toRecord(edge)] : [];
      });
      return { records, warnings: [] };
    },
    async reset(namespace) {
      const group = groupOf(namespace);
      await store.deleteGroup(group);
      edgesWritten.delete(group);
    },
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

/**
 * `<runId>__<namespace>` when both are plain (`[A-Za-z0-9]+` joined by single `_`); otherwise the part gets
 * `_` for every other character plus a hash of its raw value. A group id is thus valid for Graphiti and a
 * single Lucene token, so the index's `group_id` field never matches a query word (as with the paper's
 * single group `mwe_rebirth`), and distinct runs or namespaces do not collide in practice.
 */
export function groupId(runId: string, namespace: string): string {
  const part = (value: string): string => {
    if (PLAIN_PART.test(value)) return value;
    return `${value.replace(/[^A-Za-z0-9]/g, '_')}_${createHash('sha256').update(value).digest('hex').slice(0, 8)}`;
  };
  return `${part(runId)}__${part(namespace)}`;
}

/** An RFC 9562 version-8 uuid from the sha256 of the parts: the same writes give the same ids in every run. */
function stableUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
