// Target `cognee` (model): our cognee port (CHUNKS search) on the embedded vector store, persisted as one JSON file.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCogneeBackend } from '../../../../backends/cognee-backend.js';
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import type { IntegrityTarget, TargetDescription } from './integrity-target.js';
import { createJsonFileVectorStore } from './json-file-vector-store.js';
import { startVectorSystemSession, VECTOR_NAMESPACE } from './vector-system-session.js';
import { vectorJsonRawAccess, type PayloadLayout } from './vector-json-raw.js';

const LAYOUT: PayloadLayout = {
  collection: 'DocumentChunk_text',
  ownerOf: (payload) => (typeof payload.dataset === 'string' ? payload.dataset : null),
  owners: VECTOR_NAMESPACE,
  fixed: ['id', 'run_id', 'dataset'],
  labels: ['created_at', 'updated_at', 'type', 'version', 'valid_to', 'importance_weight'],
  textOf: (payload) => String(payload.text ?? ''),
  withText: (payload, text) => ({ ...payload, text }),
  relabelled: (payload) => ({ ...payload, created_at: Number(payload.created_at) - 30 * 86_400_000 }),
  forgedPayload: (template, id) => ({ ...template, id, chunk_index: 0 }),
};

/**
 * Creates `cognee`: cognee 1.5.2 add + cognify and CHUNKS search as ported in backends/cognee-*.ts, on the
 * embedded vector store whose state the harness keeps in `store/vectors.json`.
 *
 * @example const target = createCogneeTarget();
 */
export function createCogneeTarget(): IntegrityTarget {
  const description: TargetDescription = {
    label: 'cognee (model): our cognee 1.5.2 port on the embedded vector store, persisted as a JSON file',
    model: true,
    versions: { 'cognee (ported)': '1.5.2 @ a8f9760b', 'stalebench embedded vector store': 'json-file v1' },
    store: `embedded vector store state in one JSON file (node:fs, Node ${process.versions.node})`,
    config: {
      'integrity features': 'none (cognee has none)',
      seeding: 'direct mode: add + cognify per record (one chunk each)',
      'read path': 'search(CHUNKS, query), top_k 15',
      embedder: `${createLexicalEmbedder().id} (offline)`,
    },
    detection: 'read',
    contexts: 2,
    tooling: 'JSON edits of store/vectors.json (node:fs); cp of store/ (T9)',
  };
  return {
    id: 'cognee',
    describe: async () => description,
    async createStore({ dir, cellId, log }) {
      const storeDir = join(dir, 'store');
      mkdirSync(storeDir, { recursive: true });
      const path = join(storeDir, 'vectors.json');
      return {
        raw: vectorJsonRawAccess(path, 'store/vectors.json', storeDir, LAYOUT, log),
        start: () => startVectorSystemSession(createCogneeBackend, createJsonFileVectorStore(path), cellId, dir),
        async dispose() {},
      };
    },
  };
}
