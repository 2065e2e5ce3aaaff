// mem0 (the real mem0ai OSS SDK, in-process SQLite): the paper's two configurations, default and expired-shown.
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { mem0Paths, mem0Version, openMem0Client, type Mem0Client, type Mem0LlmChoice } from './mem0-client.js';
import { dropQdrantCollections } from './qdrant-connection.js';
import { mem0QdrantCollections, mem0QdrantConfig } from './qdrant-mem0.js';
import { createMem0ChatModel } from './mem0-extraction-llm.js';
import { unrevokeMem0Store } from './mem0-unrevoke.js';
import {
  mem0UserId,
  notExpiredFilter,
  revokedExpirationDate,
  showExpiredFor,
  toMem0Record,
  utcDate,
} from './mem0-records.js';
import type {
  BackendDescription,
  BackendSettings,
  InsertReport,
  MemoryBackend,
  RecordedWarning,
} from './memory-backend.js';
import { refuseProvenance } from './provenance.js';

export { mem0Version } from './mem0-client.js';

/** An OpenAI-compatible endpoint for mem0's own `openai` LLM provider (natural mode with a real extraction model). */
export interface Mem0LlmEndpoint {
  /** Model id sent to the endpoint, e.g. `qwen2.5:3b-instruct`. */
  model: string;
  /** `OPENAI_BASE_URL`-style base, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** API key; a placeholder is sent when absent (local servers ignore it). */
  apiKey?: string;
}

/** Settings of the mem0 backends. */
export type Mem0Settings = BackendSettings & {
  /** `default` = system id `mem0` (expired memories hidden); `expired-shown` = `mem0-exp` (`showExpired: true`). */
  variant: 'default' | 'expired-shown';
  /**
   * Used only when `extraction.simulated` is false: mem0's `openai` provider then reads mem0's prompt on this
   * endpoint. Absent (or with the simulator), mem0's `langchain` hook gets a model that answers mem0's
   * additive-extraction prompt with `extraction.extractFacts`.
   */
  llm?: Mem0LlmEndpoint;
};

const COUNT_LIMIT = 100_000;
// Not implemented yet (issue #19 item 1 covers graphiti): mem0 could keep the list in its metadata payload.
const NO_PROVENANCE =
  'taint-carrying write-back is implemented for graphiti only; mem0 journals carry no provenance here';
/**
 * mem0ai stamps `createdAt` with the wall clock to the millisecond. Two writes inside one millisecond (a fast machine
 * seeding a revoked fact and its replacement) would carry the same instant, and whatever orders records by time (the
 * stale guard among them) could not tell which came later. Each write therefore starts only once the clock has moved
 * past the end of the one before, as writes made apart in time would.
 */
async function afterLastWrite(lastWriteEnded: number): Promise<void> {
  while (Date.now() <= lastWriteEnded) await new Promise((resolve) => setTimeout(resolve, 1));
}

const READ_SUMMARY = { default: 'showExpired: false (mem0 default)', 'expired-shown': 'showExpired: true' } as const;

/**
 * Creates `mem0` (variant `default`) or `mem0-exp` (variant `expired-shown`) on mem0ai's `Memory` with its
 * SQLite `memory` vector store and history under `workDir`. A namespace is the mem0 `userId`
 * `<runId>__<namespace>`. Direct writes (stale-retrieval.md §3.2): each revoked fact with
 * `add(fact, {userId, infer: false, expirationDate: yesterday UTC})`, then each current fact with `infer: false`;
 * the insert then checks that mem0's default read hides the revoked facts and throws otherwise. Natural writes:
 * `add(episode.text, {userId})` with mem0's inference on. Reads: `search(query, {filters: {user_id}, topK,
 * showExpired})`; the store filter is `showExpired: false` for both variants.
 *
 * @example
 * const backend = createMem0Backend({ embedder, extraction, runId: 'r1', workDir: '/tmp/r1', variant: 'default' });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 * const { records } = await backend.search({ namespace: 'mfa_waiver_access', query, limit: 10 });
 */
export function createMem0Backend(settings: Mem0Settings): MemoryBackend {
  const { runId, variant, extraction } = settings;
  const id = variant === 'default' ? 'mem0' : 'mem0-exp';
  const vector = settings.engine?.vector;
  // Both variants share a run id and user ids, so the collection name carries the system id.
  const qdrant =
    vector?.id === 'qdrant'
      ? {
          url: vector.url,
          ...(vector.apiKey ? { apiKey: vector.apiKey } : {}),
          collectionPrefix: `stalebench_${runId}`,
          system: id,
        }
      : undefined;
  const endpoint = extraction.simulated ? undefined : settings.llm;
  const llm: Mem0LlmChoice = endpoint
    ? { provider: 'openai', ...endpoint }
    : { provider: 'langchain', model: createMem0ChatModel(extraction) };
  const extractor = endpoint ? `openai:${endpoint.model}` : extraction.id;
  const llmWarnings: RecordedWarning[] = [];
  if (extraction.simulated && settings.llm) {
    llmWarnings.push({
      type: 'unsupported',
      feature: 'mem0 llm endpoint',
      message: `ignored: the extraction model ${extraction.id} is simulated`,
    });
  }
  if (!extraction.simulated && !endpoint) {
    llmWarnings.push({
      type: 'compatibility',
      feature: 'mem0 extraction LLM',
      message: `no llm endpoint: mem0's additive-extraction prompt is answered by ${extraction.id}.extractFacts (facts only, no linked_memory_ids)`,
    });
  }
  let client: Mem0Client | undefined;

  const opened = (namespace: string): { memory: Mem0Client['memory']; userId: string } => {
    if (!client) throw new EvalError('backend-not-open', `${id}: call open() before using the backend`);
    return { memory: client.memory, userId: mem0UserId(runId, namespace) };
  };
  const countAll = async (memory: Mem0Client['memory'], userId: string): Promise<number> =>
    (await memory.getAll({ filters: { user_id: userId }, topK: COUNT_LIMIT, showExpired: true })).results.length;

  const description: BackendDescription = {
    summary: `mem0ai ${mem0Version()} OSS Memory (mem0ai/oss) on ${qdrant ? `Qdrant at ${qdrant.url} (collection ${qdrant.collectionPrefix}_${id})` : 'its SQLite memory store'}; direct = add(infer: false, expirationDate = yesterday UTC); default read search(filters {user_id}, topK) with ${READ_SUMMARY[variant]}`,
    modes: { direct: { supported: true }, natural: { supported: true } },
    exposure: { rule: 'lexical' },
    get storeFilter() {
      return notExpiredFilter();
    },
    statusFields: ['expiration_date'],
  };

  // When the last mem0 write of this backend ended (its clock; see afterLastWrite).
  let lastWriteEnded = 0;
  /** `memory.add`, started after the clock has passed the previous write's end. */
  const add = async (
    memory: Mem0Client['memory'],
    text: string,
    options: Parameters<Mem0Client['memory']['add']>[1],
  ) => {
    await afterLastWrite(lastWriteEnded);
    try {
      return await memory.add(text, options);
    } finally {
      lastWriteEnded = Date.now();
    }
  };

  const open = async () => {
    if (client) return;
    client = await openMem0Client({
      paths: mem0Paths(settings.workDir),
      embedder: settings.embedder,
      llm,
      ...(qdrant ? { qdrant } : {}),
    });
  };

  return {
    id,
    description,
    open,
    async insert(request): Promise<InsertReport> {
      const { namespace, now, writes, metadata: written } = request;
      refuseProvenance('mem0', request, NO_PROVENANCE);
      const { memory, userId } = opened(namespace);
      // mem0's add takes caller metadata and stores it in the memory's payload, where search filters can read it.
      const metadata = written === undefined ? {} : { metadata: { ...written } };
      if (writes.mode === 'natural') {
        for (const episode of writes.episodes) await add(memory, episode.text, { userId, ...metadata });
        const warnings = [...llmWarnings, ...(endpoint ? [] : (client?.warnings ?? []))];
        return { stored: await countAll(memory, userId), extractor, warnings };
      }
      // `writes.relation` names graph edges; mem0 stores text only.
      const expirationDate = revokedExpirationDate(now);
      const revoked: { id: string; text: string }[] = [];
      for (const fact of writes.revoked) {
        const { results } = await add(memory, fact, { userId, infer: false, expirationDate, ...metadata });
        revoked.push(...results.map((item) => ({ id: item.id, text: fact })));
      }
      for (const fact of writes.current) await add(memory, fact, { userId, infer: false, ...metadata });
      const stored = await countAll(memory, userId);
      await assertDefaultReadHides(memory, userId, revoked, expirationDate, stored);
      return { stored, extractor: 'none', warnings: clockWarnings(now) };
    },
    async search(request) {
      const { memory, userId } = opened(request.namespace);
      refuseProvenance('mem0', request, NO_PROVENANCE);
      const showExpired = request.filter === undefined ? variant === 'expired-shown' : showExpiredFor(request.filter);
      const { results } = await memory.search(request.query, {
        filters: { ...request.metadataFilter, user_id: userId },
        topK: request.limit,
        showExpired,
      });
      return { records: results.map(toMem0Record), warnings: [] };
    },
    async listRecords(namespace) {
      const { memory, userId } = opened(namespace);
      const { results } = await memory.getAll({ filters: { user_id: userId }, topK: COUNT_LIMIT, showExpired: true });
      const today = utcDate(new Date());
      // mem0 hides a memory whose expiration_date is before today's UTC date: that is its revocation.
      return results.map((item) => {
        const record = toMem0Record(item);
        const expiry = record.fields.expiration_date;
        return { record, revoked: typeof expiry === 'string' && expiry.slice(0, 10) < today };
      });
    },
    async reset(namespace) {
      const { memory, userId } = opened(namespace);
      await memory.deleteAll({ userId });
    },
    async unrevoke(namespace) {
      const { userId } = opened(namespace);
      if (qdrant)
        throw new UnsupportedFeatureError(id, 'the un-revoke tamper', 'implemented for the SQLite memory store only');
      // Stop, edit the file, restart: as an attacker editing a stopped store (integrity.md §2.3).
      client?.close();
      client = undefined;
      const report = unrevokeMem0Store(mem0Paths(settings.workDir), userId);
      await open();
      return report;
    },
    async close() {
      client?.close();
      client = undefined;
      if (qdrant)
        await dropQdrantCollections(
          qdrant,
          mem0QdrantCollections(mem0QdrantConfig({ ...qdrant, dimension: settings.embedder.dimensions })),
        );
    },
  };
}

/** stale-retrieval.md §11: the grid is meaningless unless mem0's default read hides every revoked fact. */
async function assertDefaultReadHides(
  memory: Mem0Client['memory'],
  userId: string,
  revoked: readonly { id: string; text: string }[],
  expirationDate: string,
  stored: number,
): Promise<void> {
  if (revoked.length === 0) return;
  const filters = { user_id: userId };
  const listed = new Set((await memory.getAll({ filters, topK: stored })).results.map((item) => item.id));
  for (const fact of revoked) {
    const found = (await memory.search(fact.text, { filters, topK: 10 })).results.some((item) => item.id === fact.id);
    if (found || listed.has(fact.id)) {
      throw new EvalError(
        'mem0-expiry-not-applied',
        `mem0: the default read still returns the revoked fact "${fact.text}" seeded with expirationDate ${expirationDate}; mem0 hides only dates before today's UTC date (${utcDate(new Date())})`,
      );
    }
  }
}

/** mem0 stamps `createdAt` and tests expiry with the wall clock; a harness clock far from it is worth a note. */
function clockWarnings(now: Date): RecordedWarning[] {
  const days = Math.abs(Date.now() - now.getTime()) / 86_400_000;
  if (days <= 1) return [];
  return [
    {
      type: 'compatibility',
      feature: 'seeding clock',
      message: `mem0 uses the wall clock for createdAt and expiry; request.now ${now.toISOString()} is ${days.toFixed(1)} days away (expiry = ${revokedExpirationDate(now)})`,
    },
  ];
}
