import { describe, expect, it } from 'vitest';
import { createLexicalEmbedder, fnv1a } from './lexical-embedder.js';

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);

describe('lexical embedder', () => {
  it('is deterministic, L2-normalised and sized by `dimensions`', async () => {
    const embedder = createLexicalEmbedder({ dimensions: 64 });
    expect(embedder.id).toBe('lexical-hash-v1');
    expect(embedder.dimensions).toBe(64);
    const [first = [], second = []] = await embedder.embed(['Deployment approval', 'Deployment approval']);
    expect(first).toHaveLength(64);
    expect(first).toEqual(second);
    expect(cosine(first, first)).toBeCloseTo(1, 12);
    expect(createLexicalEmbedder().dimensions).toBe(384);
  });

  it('uses the 32-bit FNV-1a hash', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });

  it('ignores case and punctuation, and embeds a text without words to the zero vector', async () => {
    const embedder = createLexicalEmbedder();
    const [upper = [], lower = [], empty = []] = await embedder.embed(['MFA, waived!', 'mfa waived', '?!']);
    expect(upper).toEqual(lower);
    expect(empty.every((value) => value === 0)).toBe(true);
  });

  it('ranks word overlap above unrelated text', async () => {
    const embedder = createLexicalEmbedder();
    const [query = [], related = [], unrelated = []] = await embedder.embed([
      'What has our historical single-operator transfer limit been?',
      'Single-operator transfers are capped at $10,000; anything higher needs dual approval.',
      'Dashboards refresh every 5 minutes.',
    ]);
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.1);
  });

  it('rejects a non-positive or fractional size', () => {
    expect(() => createLexicalEmbedder({ dimensions: 0 })).toThrow(RangeError);
    expect(() => createLexicalEmbedder({ dimensions: 1.5 })).toThrow(RangeError);
  });
});
