// Deterministic offline embedder: hashed lexical features, no model. Its vectors measure word and spelling
// overlap, not meaning, so its cosine values are not comparable with a neural model's (the paper used
// nomic-embed-text) and retrieval results on it are not the paper's. Graphiti's gate (Neo4j score
// (1 + cos) / 2 > 0.6, i.e. raw cos > 0.2) passes only for facts sharing several words with the query, so
// paraphrases are found by BM25 alone. Use it for tests and offline runs only.
import type { Embedder } from './embedder.js';

/** Settings of the lexical embedder. */
export interface LexicalEmbedderSettings {
  /** Vector length (number of hash buckets). Default 384. */
  dimensions?: number;
}

const WORD_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.5;

/**
 * Creates the `lexical-hash-v1` embedder: lower-cased `[a-z0-9]+` words (weight 1) and the character
 * trigrams of each `#word#` (weight 0.5), each hashed with 32-bit FNV-1a (top bit = sign, the other 31
 * bits modulo `dimensions` = bucket), then L2-normalised. A text without words embeds to the zero vector.
 *
 * @example
 * const embedder = createLexicalEmbedder({ dimensions: 384 });
 * const [vector] = await embedder.embed(['Deployment approval requires TWO reviewers.']);
 */
export function createLexicalEmbedder(settings: LexicalEmbedderSettings = {}): Embedder {
  const dimensions = settings.dimensions ?? 384;
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`lexical embedder dimensions must be a positive integer, got ${dimensions}`);
  }
  return {
    id: 'lexical-hash-v1',
    dimensions,
    async embed(texts) {
      return texts.map((text) => embedText(text, dimensions));
    },
  };
}

function embedText(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const add = (feature: string, weight: number): void => {
    const hash = fnv1a(feature);
    const sign = (hash & 0x80000000) === 0 ? 1 : -1;
    const bucket = (hash & 0x7fffffff) % dimensions;
    vector[bucket] = (vector[bucket] ?? 0) + sign * weight;
  };
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    add(`w:${word}`, WORD_WEIGHT);
    const padded = `#${word}#`;
    for (let index = 0; index + 3 <= padded.length; index += 1)
      add(`c:${padded.slice(index, index + 3)}`, TRIGRAM_WEIGHT);
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** 32-bit FNV-1a over the UTF-16 code units (features are ASCII here), as an unsigned integer. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
