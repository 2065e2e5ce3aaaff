// The Python mem0ai (PyPI, the paper's library) on its local Qdrant store, in a Python process: mem0-py and mem0-py-exp.
import { join } from 'node:path';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { fieldValueOf } from './field-value.js';
import { directoryName } from './inspeximus-records.js';
import { MEM0_PY_PIN } from './mem0-py-version.js';
import { notExpiredFilter, revokedExpirationDate, showExpiredFor, utcDate } from './mem0-records.js';
import type {
  BackendDescription,
  BackendSettings,
  FieldValue,
  InsertReport,
  MemoryBackend,
  MemoryRecord,
  RecordedWarning,
} from './memory-backend.js';
import { refuseProvenance } from './provenance.js';
import { createPythonMemoryProcess, packageProblemOnce } from './python/python-memory-process.js';

/** `default` = `mem0-py` (mem0's default read hides expired memories); `expired-shown` = `mem0-py-exp`. */
export type Mem0PyVariant = 'default' | 'expired-shown';

/** Settings of the Python mem0 backends. */
export type Mem0PySettings = BackendSettings & {
  variant: Mem0PyVariant;
  /** Repository root holding the store environment and the driver; defaults to this checkout. */
  root?: string;
  /** Another mem0ai release in its own store environment (the front door's `mem0-py@<version>`); default the pin. */
  release?: { version: string; env: string };
};

/** One memory as mem0's Python `search` / `get_all` returns it. */
interface Mem0PyItem {
  id: string;
  memory: string;
  metadata?: Record<string, unknown> | null;
  expiration_date?: string;
  [field: string]: unknown;
}

const ADAPTER = 'mem0_py_memory';
const ENV = 'mem0-py';
const PROJECT_ROOT = join(import.meta.dirname, '..');
const NO_PROVENANCE = 'mem0-py journals carry no provenance';
const NO_NATURAL =
  "mem0's natural mode is add(text) with infer=True, which needs a language model; the Python process runs offline with none";

/** Null when the `mem0-py` environment holds the pinned mem0ai, else the error naming the install command. */
export const mem0PyProblem = packageProblemOnce(
  { system: 'mem0-py', adapter: ADAPTER, pin: MEM0_PY_PIN, env: ENV },
  PROJECT_ROOT,
);

/**
 * A mem0 result as a record, as `toMem0Record` does for the JS SDK: `memory` is the text; `expiration_date`,
 * `created_at`, `updated_at`, `score`, `hash` and whatever else mem0 returns are fields; metadata entries follow.
 */
function toRecord(item: Mem0PyItem): MemoryRecord {
  const { id, memory, metadata, ...rest } = item;
  const fields: Record<string, FieldValue> = { expiration_date: fieldValueOf(item.expiration_date) };
  for (const [key, value] of Object.entries(rest)) fields[key] = fieldValueOf(value);
  for (const [key, value] of Object.entries(metadata ?? {})) if (!(key in fields)) fields[key] = fieldValueOf(value);
  return { id, text: memory, fields };
}

/**
 * Creates `mem0-py` or `mem0-py-exp`: mem0ai's Python `Memory` (store environment `mem0-py`) with one local on-disk
 * Qdrant store per namespace, in one Python process per backend. The run's embedder computes every vector here and
 * sends it with its text, so mem0 ranks by the same vectors as every other system. Direct writes
 * (stale-retrieval.md §3.2): each revoked fact with `add(fact, infer=False, expiration_date=yesterday UTC)`, then each
 * current fact with `infer=False`; the insert then checks that mem0's default search hides every revoked fact.
 * Reads: `search(query, filters={user_id}, top_k)` with `show_expired=True` for `mem0-py-exp`; the store filter is
 * `show_expired=False`. Natural mode is not supported (mem0's infer=True needs a model).
 *
 * @example
 * const backend = createMem0PyBackend({ embedder, extraction, runId: 'r1', workDir: '/tmp/r1', variant: 'default' });
 */
export function createMem0PyBackend(settings: Mem0PySettings): MemoryBackend {
  const id = settings.variant === 'default' ? 'mem0-py' : 'mem0-py-exp';
  const { embedder } = settings;
  const pin = settings.release ? { name: MEM0_PY_PIN.name, version: settings.release.version } : MEM0_PY_PIN;
  const python = createPythonMemoryProcess({
    system: id,
    adapter: ADAPTER,
    pin,
    root: settings.root ?? PROJECT_ROOT,
    env: settings.release?.env ?? ENV,
    config: { dimensions: embedder.dimensions },
    workDir: join(settings.workDir, directoryName(settings.runId), id),
  });
  const servers = [settings.engine?.graph.id, settings.engine?.vector.id].filter(
    (engine) => engine !== undefined && engine !== 'embedded',
  );
  const unusedEngines: RecordedWarning[] = servers.length
    ? [
        {
          type: 'unsupported',
          feature: 'storage engine',
          message: `mem0-py keeps a local on-disk Qdrant store per namespace; ${servers.join(' and ')} is not used`,
        },
      ]
    : [];
  const search = async (namespace: string, query: string, k: number, options: Record<string, unknown>) => {
    const [vector] = await embedder.embed([query]);
    return python.request<{ records: Mem0PyItem[] }>('search', directoryName(namespace), {
      query,
      k,
      options: { ...options, query_vector: vector },
    });
  };

  const description: BackendDescription = {
    summary: `mem0ai ${pin.version} (PyPI) in a Python process, local on-disk Qdrant per namespace, the run's embedder; direct = add(infer=False, expiration_date = yesterday UTC); default read search(filters {user_id}, top_k) with ${settings.variant === 'default' ? 'show_expired=False (mem0 default)' : 'show_expired=True'}`,
    modes: { direct: { supported: true }, natural: { supported: false, reason: NO_NATURAL } },
    exposure: { rule: 'lexical' },
    get storeFilter() {
      return notExpiredFilter();
    },
    statusFields: ['expiration_date'],
  };

  return {
    id,
    description,
    async open() {
      await python.open();
    },
    async insert(request): Promise<InsertReport> {
      refuseProvenance(id, request, NO_PROVENANCE);
      const { writes, now } = request;
      if (writes.mode !== 'direct') throw new UnsupportedFeatureError(id, 'natural mode', NO_NATURAL);
      const expirationDate = revokedExpirationDate(now);
      const texts = [...writes.revoked, ...writes.current];
      const vectors = await embedder.embed(texts);
      const metadata = request.metadata === undefined ? {} : { metadata: { ...request.metadata } };
      const steps = texts.map((text, index) => ({
        add: {
          text,
          vector: vectors[index],
          ...(index < writes.revoked.length ? { expiration_date: expirationDate } : {}),
          ...metadata,
        },
      }));
      const namespace = directoryName(request.namespace);
      const result = await python.request<{ ids: string[]; stored: number }>('insert', namespace, { steps });
      // stale-retrieval.md §11: the grid is meaningless unless mem0's default read hides every revoked fact.
      for (const [index, fact] of writes.revoked.entries()) {
        const found = await search(request.namespace, fact, 10, {});
        if (found.records.some((item) => item.id === result.ids[index]))
          throw new EvalError(
            'mem0-expiry-not-applied',
            `${id}: the default search still returns the revoked fact "${fact}" seeded with expiration_date ${expirationDate}; mem0 hides only dates before today's UTC date (${utcDate(new Date())})`,
          );
      }
      return { stored: result.stored, extractor: 'none', warnings: [...unusedEngines, ...python.takeNotes()] };
    },
    async search(request) {
      refuseProvenance(id, request, NO_PROVENANCE);
      const showExpired =
        request.filter === undefined ? settings.variant === 'expired-shown' : showExpiredFor(request.filter);
      const found = await search(request.namespace, request.query, request.limit, {
        show_expired: showExpired,
        ...(request.metadataFilter ? { metadata_filter: { ...request.metadataFilter } } : {}),
      });
      return { records: found.records.map(toRecord), warnings: python.takeNotes() };
    },
    async listRecords(namespace) {
      const { records } = await python.request<{ records: Mem0PyItem[] }>('list', directoryName(namespace));
      const today = utcDate(new Date());
      return records.map((item) => ({
        record: toRecord(item),
        revoked: typeof item.expiration_date === 'string' && item.expiration_date.slice(0, 10) < today,
      }));
    },
    async reset(namespace) {
      await python.reset(directoryName(namespace));
    },
    async close() {
      await python.close();
    },
  };
}
