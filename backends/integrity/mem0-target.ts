// Target `mem0`: the real mem0ai OSS Memory on its own SQLite files; edits are SQL on vector_store.db.
import { createLexicalEmbedder } from '../lexical-embedder.js';
import { mem0Paths, mem0Version, openMem0Client } from '../mem0-client.js';
import { createMem0ChatModel } from '../mem0-extraction-llm.js';
import { revokedExpirationDate } from '../mem0-records.js';
import { createSimExtractionModel } from '../sim-extraction-model.js';
import type { ContextName, IntegrityTarget, TargetDescription } from './integrity-target.js';
import { mem0RawAccess } from './mem0-raw.js';
import { installedVersion } from './package-version.js';
import { sqliteVersion } from './raw-sqlite.js';

const USER: Record<ContextName, string> = { A: 'ctx-a', B: 'ctx-b' };
const READ_LIMIT = 1000;

/**
 * Creates the `mem0` target: mem0ai's `Memory` with the SQLite `memory` vector store and the SQLite history store
 * in the cell's directory, the offline lexical embedder and `infer: false` (no model: memories are stored verbatim).
 * A context is a mem0 user id; the read path is `getAll({filters: {user_id}})` with mem0's default `showExpired: false`.
 *
 * @example const target = createMem0Target();
 */
export function createMem0Target(): IntegrityTarget {
  const embedder = createLexicalEmbedder();
  return {
    id: 'mem0',
    async describe(): Promise<TargetDescription> {
      return {
        label: `mem0 OSS Memory (mem0ai ${mem0Version()}), SQLite memory vector store`,
        model: false,
        versions: { mem0ai: mem0Version(), 'better-sqlite3': installedVersion('better-sqlite3') },
        store: `SQLite ${sqliteVersion()}: vector_store.db (vectors) and history.db`,
        config: {
          'integrity features': 'none offered by mem0 OSS',
          ingestion: 'add(text, {infer: false, metadata: {source}}) — verbatim, no LLM',
          'read path': "getAll({filters: {user_id}}) with mem0's default showExpired: false",
          embedder: `${embedder.id} (offline, ${embedder.dimensions} dimensions)`,
        },
        detection: 'read',
        contexts: 2,
        revocationFields: ['expiration_date'],
        tooling: 'SQL through better-sqlite3 on mem0/vector_store.db; cp of the mem0 directory (T9)',
      };
    },
    async createStore({ dir, log }) {
      const paths = mem0Paths(dir);
      const raw = mem0RawAccess(paths, USER, log);
      return {
        raw,
        async start() {
          const client = await openMem0Client({
            paths,
            embedder,
            llm: { provider: 'langchain', model: createMem0ChatModel(createSimExtractionModel()) },
          });
          const { memory } = client;
          return {
            async seed(context, records) {
              for (const record of records) {
                const expiry = record.revoked ? { expirationDate: revokedExpirationDate(new Date()) } : {};
                await memory.add(record.text, {
                  userId: USER[context],
                  infer: false,
                  metadata: { ...record.labels },
                  ...expiry,
                });
              }
            },
            async read(context) {
              const { results } = await memory.getAll({ filters: { user_id: USER[context] }, topK: READ_LIMIT });
              return { status: 'served', texts: results.map((item) => item.memory) };
            },
            async stop() {
              client.close();
            },
          };
        },
        async dispose() {},
      };
    },
  };
}
