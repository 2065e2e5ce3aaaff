// cognee (1.5.2 @ a8f9760b) on a VectorStore: add + cognify (default TextChunker, graph extraction) per dataset,
// and search(query_type=CHUNKS) as the default read — vector similarity over chunk texts, no status.
import { createHash } from 'node:crypto';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { pythonUuid5 as uuid5 } from '#python-compat/index.js';
import { chunkDocument } from './cognee-chunker.js';
import { addDocumentToGraph, createCogneeGraph, type CogneeGraph } from './cognee-graph.js';
import { createEmbeddedVectorStore } from './embedded-vector-store.js';
import type { BackendSettings, MemoryBackend, MemoryRecord } from './memory-backend.js';
import type { PayloadFilter, VectorStore } from './vector-store.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';
import { refuseProvenance } from './provenance.js';

/** Settings of the cognee backend. */
export type CogneeSettings = BackendSettings & {
  /** Vector engine. Absent: a fresh embedded store owned (opened and closed) by the backend; a passed one is never closed. */
  vectors?: VectorStore;
  /** `cognee.search(top_k=...)`: chunks the vector search returns before empty ones are dropped (cognee default 15). */
  topK?: number;
  /** TextChunker `max_chunk_size` in word pieces (cognee: min(embedding max tokens 8191, LLM max tokens // 2)). */
  maxChunkTokens?: number;
};

/** The cognee backend plus read access to each dataset's graph (inspection only; no read path uses it). */
export interface CogneeBackend extends MemoryBackend {
  /** The graph cognify built for a namespace (empty when nothing was added). */
  graph(namespace: string): CogneeGraph;
}

// cognee indexes DocumentChunk.text into the "<type>_<field>" collection that ChunksRetriever searches.
const COLLECTION = 'DocumentChunk_text';
const NO_METADATA = 'cognee.add takes text only here and search(CHUNKS) has no metadata filter';

interface Dataset {
  /** Content hash (md5, as cognee names text data `text_<md5>`) → document id; re-adding a text is a no-op. */
  documents: Map<string, string>;
  graph: CogneeGraph;
}

/**
 * Creates the `cognee` backend; a namespace is a cognee dataset. Direct writes follow stale-retrieval.md §3.4:
 * add each distractor, then v2 (`current` is v2 followed by the distractors, per `MemoryWrites`), never v1 —
 * delete-then-reingest is cognee's revocation primitive — then cognify. Natural writes add both episodes, then
 * cognify. Cognify chunks each new document (one chunk per short document), indexes the chunk texts and asks the
 * extraction model for entity edges (the KnowledgeGraph step). `search` is `search(CHUNKS, query_text)`: cosine
 * top `topK`, then the first `limit` non-empty chunk texts, as the paper's probe kept. Records carry the chunk
 * index point's `created_at` / `updated_at` as cognee stores them: epoch milliseconds of the cognify run.
 *
 * @example
 * const backend = createCogneeBackend({ embedder, runId: 'r1', workDir, extraction: createSimExtractionModel() });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 * const { records } = await backend.search({ namespace: 'mfa_waiver_access', query, limit: 10 });
 */
export function createCogneeBackend(settings: CogneeSettings): CogneeBackend {
  const { embedder, runId, extraction } = settings;
  const vectors = settings.vectors ?? createEmbeddedVectorStore();
  const ownsVectors = settings.vectors === undefined;
  const topK = settings.topK ?? 15;
  const maxChunkTokens = settings.maxChunkTokens ?? 8191;
  const datasets = new Map<string, Dataset>();
  let opened = false;

  const checkOpen = (): void => {
    if (!opened) throw new EvalError('backend-not-open', 'cognee: call open() before using the backend');
  };
  const datasetOf = (namespace: string): Dataset => {
    checkOpen();
    let dataset = datasets.get(namespace);
    if (!dataset) {
      dataset = { documents: new Map(), graph: createCogneeGraph() };
      datasets.set(namespace, dataset);
    }
    return dataset;
  };
  const inDataset = (namespace: string): PayloadFilter => ({
    must: [
      { key: 'run_id', match: { value: runId } },
      { key: 'dataset', match: { value: namespace } },
    ],
  });

  /** `cognee.add(text)` for each text, then `cognee.cognify()` over the documents not processed yet. */
  const addAndCognify = async (namespace: string, texts: readonly string[], now: Date): Promise<number> => {
    const dataset = datasetOf(namespace);
    const added: { id: string; name: string; text: string }[] = [];
    for (const text of texts) {
      const md5 = createHash('md5').update(text, 'utf8').digest('hex');
      if (dataset.documents.has(md5)) continue;
      const document = { id: uuid5(JSON.stringify([runId, namespace, md5])), name: `text_${md5}`, text };
      dataset.documents.set(md5, document.id);
      added.push(document);
    }
    const chunked = added.map((document) => ({
      document,
      chunks: chunkDocument(document.id, document.text, maxChunkTokens),
    }));
    const chunks = chunked.flatMap(({ document, chunks: list }) => list.map((chunk) => ({ document, chunk })));
    if (chunks.length === 0) return 0;
    const embeddings = await embedder.embed(chunks.map(({ chunk }) => chunk.text));
    // IndexSchema(DataPoint) payload: its created_at/updated_at default to the indexing time, in epoch ms.
    const stamp = now.getTime();
    await vectors.upsert(
      COLLECTION,
      chunks.map(({ document, chunk }, index) => ({
        id: chunk.id,
        vector: embeddings[index] ?? [],
        payload: {
          id: chunk.id,
          text: chunk.text,
          document_id: document.id,
          document_name: document.name,
          chunk_index: chunk.chunk_index,
          source_chunk_id: null,
          importance_weight: 0.5,
          belongs_to_set: [],
          created_at: stamp,
          updated_at: stamp,
          version: 1,
          valid_to: null,
          type: 'IndexSchema',
          run_id: runId,
          dataset: namespace,
        },
      })),
    );
    for (const { document, chunks: list } of chunked) {
      const withEdges = [];
      for (const chunk of list)
        withEdges.push({
          chunk,
          edges: await extraction.extractEdges({ episode: chunk.text, referenceTime: now, previousEpisodes: [] }),
        });
      addDocumentToGraph(dataset.graph, document, withEdges);
    }
    return chunks.length;
  };

  return {
    id: 'cognee',
    description: {
      summary: `cognee 1.5.2 (topoteretes/cognee @ a8f9760b) on the ${vectors.id} vector store: add + cognify (TextChunker, max ${maxChunkTokens} word pieces: one chunk per short document; entity graph by the extraction model); direct = distractors then v2, v1 never added; default read search(CHUNKS, top_k ${topK}) = cosine over chunk texts, no status`,
      modes: { direct: { supported: true }, natural: { supported: true } },
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
    },
    async open() {
      await vectors.open();
      await vectors.ensureCollection(COLLECTION, embedder.dimensions);
      opened = true;
    },
    async insert(request) {
      const { namespace, now, writes } = request;
      refuseProvenance('cognee', request, NO_METADATA);
      const warnings = unstoredMetadataWarnings(request, NO_METADATA);
      if (writes.mode === 'direct') {
        const [v2, ...distractors] = writes.current;
        const stored = await addAndCognify(namespace, [...distractors, ...(v2 === undefined ? [] : [v2])], now);
        return { stored, extractor: 'none', warnings };
      }
      const stored = await addAndCognify(
        namespace,
        writes.episodes.map((episode) => episode.text),
        now,
      );
      return { stored, extractor: extraction.id, warnings };
    },
    async search(request) {
      checkOpen();
      refuseMetadataFilter('cognee', request, NO_METADATA);
      refuseProvenance('cognee', request, NO_METADATA);
      if (request.filter !== undefined) {
        throw new UnsupportedFeatureError(
          'cognee',
          'filter',
          'CHUNKS search has no validity filter and chunks carry no status; the filtered read is the default read',
        );
      }
      if (request.limit <= 0) return { records: [], warnings: [] };
      const [vector = []] = await embedder.embed([request.query]);
      const hits = await vectors.search({
        collection: COLLECTION,
        vector,
        limit: topK,
        filter: inDataset(request.namespace),
      });
      const records: MemoryRecord[] = hits
        .filter((hit) => typeof hit.payload.text === 'string' && hit.payload.text !== '')
        .slice(0, request.limit)
        .map((hit) => ({
          id: hit.id,
          text: hit.payload.text as string,
          fields: { created_at: hit.payload.created_at as number, updated_at: hit.payload.updated_at as number },
        }));
      return { records, warnings: [] };
    },
    async reset(namespace) {
      checkOpen();
      await vectors.delete(COLLECTION, inDataset(namespace));
      datasets.delete(namespace);
    },
    async close() {
      if (ownsVectors && opened) await vectors.close();
      opened = false;
    },
    graph(namespace) {
      return datasets.get(namespace)?.graph ?? createCogneeGraph();
    },
  };
}
