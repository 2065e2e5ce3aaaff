// langmem and cognee (our ports) as running integrity sessions on the JSON-file vector store.
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import type { MemoryBackend } from '../../../../backends/memory-backend.js';
import { createSimExtractionModel } from '../../../../backends/sim-extraction-model.js';
import type { VectorStore } from '../../../../backends/vector-store.js';
import type { ContextName, TargetSession } from './integrity-target.js';

/** Namespaces of the two contexts (langmem namespace part, cognee dataset). */
export const VECTOR_NAMESPACE: Record<ContextName, string> = { A: 'ctx-a', B: 'ctx-b' };

/** The read path's query: every seeded record shares these words with it. */
const VECTOR_QUERY = 'approved transfer limit vault phrase';

/** The settings both backends take. */
export interface VectorSystemSettings {
  embedder: ReturnType<typeof createLexicalEmbedder>;
  runId: string;
  workDir: string;
  extraction: ReturnType<typeof createSimExtractionModel>;
  vectors: VectorStore;
}

/**
 * Starts a backend on `vectors` and exposes it as a session: seeding is one direct-mode `insert` per record (the
 * system's own write path), reading its default `search`, stopping closes the backend and the store.
 */
export async function startVectorSystemSession(
  create: (settings: VectorSystemSettings) => MemoryBackend,
  vectors: VectorStore,
  runId: string,
  workDir: string,
): Promise<TargetSession> {
  const backend = create({
    embedder: createLexicalEmbedder(),
    runId,
    workDir,
    extraction: createSimExtractionModel(),
    vectors,
  });
  await backend.open();
  let tick = 0;
  return {
    async seed(context, records) {
      for (const record of records) {
        if (record.revoked)
          throw new Error(`${backend.id} has no revocation status to seed (its revocation is a hard delete)`);
        await backend.insert({
          namespace: VECTOR_NAMESPACE[context],
          now: new Date(Date.now() + tick++),
          writes: { mode: 'direct', revoked: [], current: [record.text] },
        });
      }
    },
    async read(context) {
      const { records } = await backend.search({
        namespace: VECTOR_NAMESPACE[context],
        query: VECTOR_QUERY,
        limit: 50,
      });
      return { status: 'served', texts: records.map((record) => record.text) };
    },
    async stop() {
      await backend.close();
      await vectors.close();
    },
  };
}
