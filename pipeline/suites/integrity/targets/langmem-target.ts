// Target `langmem` (model): our langmem port on the embedded vector store, persisted as one JSON file.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLangmemBackend } from '../../../../backends/langmem-backend.js';
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import type { IntegrityTarget, JsonValue, TargetDescription } from './integrity-target.js';
import { createJsonFileVectorStore } from './json-file-vector-store.js';
import { startVectorSystemSession, VECTOR_NAMESPACE } from './vector-system-session.js';
import { vectorJsonRawAccess, type PayloadLayout } from './vector-json-raw.js';

const earlier = (value: JsonValue | undefined): string =>
  new Date(Date.parse(String(value)) - 30 * 86_400_000).toISOString();

const LAYOUT: PayloadLayout = {
  collection: 'langmem_store',
  ownerOf: (payload) => (Array.isArray(payload.namespace) ? String(payload.namespace[1]) : null),
  owners: VECTOR_NAMESPACE,
  fixed: ['namespace', 'namespace_prefixes', 'key'],
  labels: ['created_at', 'updated_at'],
  textOf: (payload) => String((payload.value as { content?: unknown } | null)?.content ?? ''),
  withText: (payload, text) => ({
    ...payload,
    value: { ...(payload.value as Record<string, JsonValue>), content: text },
  }),
  relabelled: (payload) => ({ ...payload, created_at: earlier(payload.created_at) }),
  forgedPayload: (template, id) => ({ ...template, key: id }),
};

/**
 * Creates `langmem`: langmem 0.0.30 on a LangGraph InMemoryStore-style store as ported in backends/langmem-*.ts,
 * on the embedded vector store whose state the harness keeps in `store/vectors.json`.
 *
 * @example const target = createLangmemTarget();
 */
export function createLangmemTarget(): IntegrityTarget {
  const description: TargetDescription = {
    label: 'langmem (model): our langmem 0.0.30 port on the embedded vector store, persisted as a JSON file',
    model: true,
    versions: { 'langmem (ported)': '0.0.30 @ b5dbe4aa', 'stalebench embedded vector store': 'json-file v1' },
    store: `embedded vector store state in one JSON file (node:fs, Node ${process.versions.node})`,
    config: {
      'integrity features': 'none (LangGraph stores have none)',
      seeding: 'direct mode: store.put({content}) per record',
      'read path': 'store.search(namespace, query, limit)',
      embedder: `${createLexicalEmbedder().id} (offline)`,
    },
    detection: 'read',
    contexts: 2,
    tooling: 'JSON edits of store/vectors.json (node:fs); cp of store/ (T9)',
  };
  return {
    id: 'langmem',
    describe: async () => description,
    async createStore({ dir, cellId, log }) {
      const storeDir = join(dir, 'store');
      mkdirSync(storeDir, { recursive: true });
      const path = join(storeDir, 'vectors.json');
      return {
        raw: vectorJsonRawAccess(path, 'store/vectors.json', storeDir, LAYOUT, log),
        start: () => startVectorSystemSession(createLangmemBackend, createJsonFileVectorStore(path), cellId, dir),
        async dispose() {},
      };
    },
  };
}
