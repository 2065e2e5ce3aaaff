// What a run manifest says about its embedder: id, vector length, and for an endpoint the server and the model it ran.
import type { Embedder } from '../../backends/embedder.js';
import type { RunManifest } from '../run-log/run-log.js';

/**
 * The manifest's `embedder` entry. Written when the run starts and again when it ends, after the endpoint has
 * answered: the vector length and the served model are known only then.
 *
 * @example embedderRecord(embedder) // { id: 'openai:e5-passage', dimensions: 384, server: 'http://127.0.0.1:8090/v1', servedModel: 'multilingual-e5-small-q4' }
 */
export function embedderRecord(embedder: Embedder): RunManifest['embedder'] {
  const { endpoint } = embedder;
  return {
    id: embedder.id,
    dimensions: embedder.dimensions,
    ...(endpoint ? { server: endpoint.baseURL, servedModel: endpoint.servedModel } : {}),
  };
}
