// Zep Community Edition (getzep/zep legacy/ @ 7de18dfa): Graphiti underneath, read through CE's API mapping.
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { EntityEdge, GraphStore } from './graph-store.js';
import { createGraphitiBackend } from './graphiti-backend.js';
import { groupId } from './graphiti-ids.js';
import type { BackendSettings, MemoryBackend, MemoryRecord, RecordedWarning } from './memory-backend.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';
import { refuseProvenance } from './provenance.js';

/** Settings of the Zep CE backend. */
export type ZepCeSettings = BackendSettings & {
  /** Graph engine of the sidecar; absent: a fresh embedded store this backend owns. A passed store is never closed. */
  store?: GraphStore;
  /**
   * Time between two posted messages. CE sends no timestamp, so the sidecar stamps each message with its own clock
   * on receipt (graph_service `Message.timestamp = utc_now()`); the paper slept `ZEP_SETTLE_S = 45` s after each
   * post, so ep1's reference time is 45 s after ep0's. `0` models both posted at once: equal reference times.
   */
  settleMs?: number;
};

/** The paper's `ZEP_SETTLE_S` (stale-retrieval.md §3.5). */
export const ZEP_SETTLE_MS = 45_000;
const DIRECT_REASON =
  "Zep CE's API cannot write a pre-revoked fact (stale-retrieval.md §3.5); the cell is n/a, not a pass";
const NO_METADATA = 'CE posts messages with no caller metadata and its search has no metadata filter';
const NO_PROVENANCE = 'CE posts messages only; its facts carry uuid, fact and created_at and no caller provenance';
const FILTER_REASON =
  'Zep CE has no read filter (MemoryFilterOptions is an empty struct; the sidecar searches with no filter)';

/**
 * Creates the `zep-ce` backend: a Graphiti backend on the same store (episodes of type `message`), reached
 * the way CE reaches its sidecar. Natural seeding posts each episode as one user message; the sidecar runs
 * `add_episode(body = "user(user): <content>", reference_time = its clock at receipt)`, so the episodes' own
 * reference times (now − 90 d) never reach Graphiti and message `i` is dated `now + i × settleMs`. With the
 * default 45 s, v2's edges have a strictly later `valid_at` and Graphiti's date arithmetic can retire v1's
 * edges; with `settleMs: 0` it cannot (memory-systems.md §2.2 item 4). CE posts each message to the
 * session's group and to the user's; only the user's group is modelled, as session search by `user_id` reads
 * only that one. Search is `/sessions/search` → `graphiti.search(query, group_ids=[user], num_results=limit)`
 * with no filter, and each fact is mapped to CE's `Fact{uuid, fact, created_at := valid_at ?? created_at}`:
 * `valid_at`, `invalid_at` and `expired_at` are dropped. `revocationOracle` reads them from the graph, as the
 * paper read Zep's Neo4j (a measurement, not something CE offers an application).
 *
 * @example
 * const zep = createZepCeBackend({ embedder, runId: 'r1', workDir, extraction: createSimExtractionModel() });
 * await zep.open();
 * await zep.insert({ namespace, now, writes: { mode: 'natural', episodes: episodesFor(scenario, now) } });
 * const { records } = await zep.search({ namespace, query, limit: 10 });
 * const revoked = await zep.revocationOracle?.(namespace, records);
 */
export function createZepCeBackend(settings: ZepCeSettings): MemoryBackend {
  const store = settings.store ?? createEmbeddedGraphStore();
  const ownsStore = settings.store === undefined;
  const settleMs = settings.settleMs ?? ZEP_SETTLE_MS;
  const sidecar = createGraphitiBackend({ ...settings, store, episodeSource: 'message' });
  let opened = false;

  const groupOf = (namespace: string): string => {
    if (!opened) throw new EvalError('backend-not-open', 'zep-ce: call open() before using the backend');
    return groupId(settings.runId, namespace);
  };

  return {
    id: 'zep-ce',
    description: {
      summary: `Zep CE (getzep/zep legacy/ @ 7de18dfa) over a Graphiti sidecar modelled by graphiti add_episode with ${settings.extraction.id} on the ${store.id} graph store: one user message per episode, reference time = sidecar clock (messages ${settleMs / 1000} s apart); /sessions/search = graphiti search with no filter; facts carry uuid, fact, created_at only`,
      modes: { direct: { supported: false, reason: DIRECT_REASON }, natural: { supported: true } },
      exposure: { rule: 'oracle', fields: ['expired_at', 'invalid_at'] },
      storeFilter: null,
      statusFields: [],
      independentNamespaces: store.statisticsScope === 'group',
    },
    async open() {
      await sidecar.open();
      opened = true;
    },
    async insert(request) {
      const { namespace, now, writes } = request;
      groupOf(namespace);
      refuseProvenance('zep-ce', request, NO_PROVENANCE);
      if (writes.mode === 'direct') throw new UnsupportedFeatureError('zep-ce', 'direct seeding', DIRECT_REASON);
      const warnings: RecordedWarning[] = unstoredMetadataWarnings(request, NO_METADATA);
      let stored = 0;
      for (const [index, episode] of writes.episodes.entries()) {
        const received = new Date(now.getTime() + index * settleMs);
        // graph_service/routers/ingest.py: episode_body = f'{role}({role_type}): {content}', no name or source description.
        const message = {
          name: '',
          text: `user(user): ${episode.text}`,
          referenceTime: received,
          sourceDescription: '',
        };
        const report = await sidecar.insert({
          namespace,
          now: received,
          writes: { mode: 'natural', episodes: [message] },
        });
        warnings.push(...report.warnings);
        stored = report.stored;
      }
      return { stored, extractor: settings.extraction.id, warnings };
    },
    async search(request) {
      groupOf(request.namespace);
      if (request.filter !== undefined) throw new UnsupportedFeatureError('zep-ce', 'search filters', FILTER_REASON);
      refuseMetadataFilter('zep-ce', request, NO_METADATA);
      refuseProvenance('zep-ce', request, NO_PROVENANCE);
      const { records, warnings } = await sidecar.search({
        namespace: request.namespace,
        query: request.query,
        limit: request.limit,
      });
      return { records: records.map(toZepFact), warnings };
    },
    async reset(namespace) {
      groupOf(namespace);
      await sidecar.reset(namespace);
    },
    exclusive: (work) => store.exclusive(work),
    async close() {
      await sidecar.close();
      if (ownsStore && opened) await store.close();
      opened = false;
    },
    async listRecords(namespace) {
      groupOf(namespace);
      // The sidecar's edges with their status (measurement only; CE's API hides it).
      return (await sidecar.listRecords?.(namespace)) ?? [];
    },
    async unrevoke(namespace) {
      groupOf(namespace);
      // The status lives in the sidecar's graph, where Zep CE keeps it (hidden from its API).
      return sidecar.unrevoke!(namespace);
    },
    async revocationOracle(namespace, records) {
      // From the engine, as the paper read Zep's Neo4j: every edge of the user's group, whoever wrote it.
      const edges = await store.getEdgesByGroup(groupOf(namespace));
      const revoked = (edge: EntityEdge | undefined): boolean =>
        edge !== undefined && (edge.expired_at !== null || edge.invalid_at !== null);
      const byUuid = new Map(edges.map((edge) => [edge.uuid, edge]));
      // By uuid, or, as the paper's Neo4j query did, by fact text: any revoked edge with the same fact.
      return records.map(
        (record) => revoked(byUuid.get(record.id)) || edges.some((edge) => edge.fact === record.text && revoked(edge)),
      );
    },
  };
}

/** CE's `models.Fact` from the sidecar's fact: `created_at` is `valid_at` when set; the status fields are dropped. */
function toZepFact(record: MemoryRecord): MemoryRecord {
  const createdAt = record.fields.valid_at ?? record.fields.created_at ?? null;
  return { id: record.id, text: record.text, fields: { fact: record.text, uuid: record.id, created_at: createdAt } };
}
