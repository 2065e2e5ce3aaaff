// Remembers each text's vector for the length of one run: the grid writes the same genuine memories hundreds of times,
// and a deterministic model returns the same vector for the same text.
import type { Embedder } from '../../../../backends/embedder.js';

/** `inner` with a per-run cache; `calls` counts the texts actually sent to `inner`. */
export function cachingEmbedder(inner: Embedder): Embedder & { readonly calls: number } {
  const cache = new Map<string, number[]>();
  let calls = 0;
  return {
    id: inner.id,
    get dimensions() {
      return inner.dimensions;
    },
    get calls() {
      return calls;
    },
    async embed(texts) {
      const missing = [...new Set(texts.filter((text) => !cache.has(text)))];
      if (missing.length > 0) {
        const vectors = await inner.embed(missing);
        calls += missing.length;
        missing.forEach((text, index) => {
          cache.set(text, vectors[index] ?? []);
        });
      }
      return texts.map((text) => [...(cache.get(text) ?? [])]);
    },
  };
}
