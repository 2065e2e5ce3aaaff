// The `vectorStore` config that puts mem0 (mem0ai/oss) on its own `qdrant` provider, one collection per run and system.
import type { QdrantEndpoint } from './qdrant-connection.js';

/** Arguments of `mem0QdrantConfig`. */
export interface Mem0QdrantOptions extends QdrantEndpoint {
  /** The run's collection prefix, as the Qdrant vector store gets it (e.g. `stalebench_<runId>`). */
  collectionPrefix: string;
  /** The system id (`mem0`, `mem0-exp`): both variants share a run id and a namespace → user id mapping. */
  system: string;
  /** Embedding dimensions (`embedder.dimensions`); mem0 creates the collection with them and skips its probe. */
  dimension: number;
}

/** mem0's `vectorStore` entry for the qdrant provider (mem0ai 3.3.1 `QdrantConfig`). */
export interface Mem0QdrantVectorStore {
  provider: 'qdrant';
  config: {
    /** Server URL; mem0 passes it to `QdrantClient` with the URL's port (6333 when absent). */
    url: string;
    /** Sent only when set (mem0 drops an empty key). */
    apiKey?: string;
    /** `<collectionPrefix>_<system>`; mem0 adds `<collectionName>_entities` for its entity store. */
    collectionName: string;
    /** What mem0's Qdrant store reads to size the collection (its default is 1536). */
    dimension: number;
    /** Required by mem0's `QdrantConfig` type; its Qdrant store does not read it. */
    embeddingModelDims: number;
  };
}

/**
 * The mem0 vector-store config on Qdrant. Mem0 builds its own client (300 s timeout, version check) and, besides
 * the run's two collections, upserts into a global `memory_migrations` collection (a random id for its telemetry
 * user), so the run should `probeQdrant` first to fail in seconds, and at the end drop `mem0QdrantCollections(...)`
 * with `dropQdrantCollections` when the run owns them.
 *
 * @example
 * const vectorStore = mem0QdrantConfig({ url: 'http://127.0.0.1:6333', collectionPrefix: 'stalebench_r1', system: 'mem0', dimension: 384 });
 * // { provider: 'qdrant', config: { url, collectionName: 'stalebench_r1_mem0', dimension: 384, embeddingModelDims: 384 } }
 */
export function mem0QdrantConfig(options: Mem0QdrantOptions): Mem0QdrantVectorStore {
  if (!/^[A-Za-z0-9._-]+$/.test(`${options.collectionPrefix}_${options.system}`)) {
    throw new RangeError(
      `mem0 qdrant collection "${options.collectionPrefix}_${options.system}" may hold only letters, digits, ".", "_" and "-"`,
    );
  }
  if (!Number.isInteger(options.dimension) || options.dimension < 1)
    throw new RangeError(`mem0 qdrant: dimension must be a positive integer, got ${options.dimension}`);
  return {
    provider: 'qdrant',
    config: {
      url: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      collectionName: `${options.collectionPrefix}_${options.system}`,
      dimension: options.dimension,
      embeddingModelDims: options.dimension,
    },
  };
}

/** The collections mem0 creates for this config (its memories and its entity store), for cleanup at the end of a run. */
export function mem0QdrantCollections(entry: Mem0QdrantVectorStore): string[] {
  return [entry.config.collectionName, `${entry.config.collectionName}_entities`];
}
