import type { MemoryConfig } from 'mem0ai/oss';
import { describe, expect, it } from 'vitest';
import { mem0QdrantCollections, mem0QdrantConfig } from './qdrant-mem0.js';

describe('mem0QdrantConfig', () => {
  it("builds mem0's qdrant provider entry with a per-run, per-system collection", () => {
    const entry: MemoryConfig['vectorStore'] = mem0QdrantConfig({
      url: 'http://127.0.0.1:6333',
      apiKey: 'k',
      collectionPrefix: 'stalebench_r1',
      system: 'mem0-exp',
      dimension: 384,
    });
    expect(entry).toEqual({
      provider: 'qdrant',
      config: {
        url: 'http://127.0.0.1:6333',
        apiKey: 'k',
        collectionName: 'stalebench_r1_mem0-exp',
        dimension: 384,
        embeddingModelDims: 384,
      },
    });
    const plain = mem0QdrantConfig({ url: 'http://q:6333', collectionPrefix: 'p', system: 'mem0', dimension: 8 });
    expect(plain.config).not.toHaveProperty('apiKey');
    expect(mem0QdrantCollections(plain)).toEqual(['p_mem0', 'p_mem0_entities']);
  });

  it('rejects collection names Qdrant would refuse and bad dimensions', () => {
    expect(() =>
      mem0QdrantConfig({ url: 'http://q:6333', collectionPrefix: 'a/b', system: 'mem0', dimension: 8 }),
    ).toThrow(RangeError);
    expect(() =>
      mem0QdrantConfig({ url: 'http://q:6333', collectionPrefix: 'p', system: 'mem0', dimension: 0 }),
    ).toThrow(RangeError);
  });
});
