// How the embedded graph store scores edges: Lucene BM25 over Graphiti's three indexed fields, Neo4j's cosine.
import type { EntityEdge, ScoredEdge } from './graph-model.js';
import { bm25Idf, bm25TermFrequency, fieldStatistics, standardAnalyze, type FieldStatistics } from './lucene-bm25.js';

// The properties of Graphiti's `edge_name_and_fact` index, each its own Lucene field with its own statistics.
export const INDEXED_FIELDS = ['name', 'fact', 'group_id'] as const;

/** BM25 over the three fields for every query term, plus the required `group_id:"<g>"` clause; matching edges in input (document) order. */
export function rankFulltext(candidates: readonly EntityEdge[], terms: readonly string[]): ScoredEdge[] {
  const tokenized = candidates.map((edge) => INDEXED_FIELDS.map((field) => standardAnalyze(edge[field])));
  const statistics = INDEXED_FIELDS.map((_, field) => fieldStatistics(tokenized.map((fields) => fields[field] ?? [])));
  const hits: ScoredEdge[] = [];
  candidates.forEach((edge, index) => {
    const fields = tokenized[index] ?? [];
    let score = 0;
    let matched = terms.length === 0; // no analysable term: the group clause alone matches the whole group
    for (const term of terms) {
      fields.forEach((tokens, field) => {
        const freq = tokens.filter((token) => token === term).length;
        const fieldStats = statistics[field];
        if (freq === 0 || !fieldStats) return;
        matched = true;
        score += bm25Idf(fieldStats, term) * bm25TermFrequency(freq, tokens.length, fieldStats);
      });
    }
    if (matched) hits.push({ edge, score: score + groupClauseScore(fields[2] ?? [], statistics[2]) });
  });
  return hits;
}

/** A phrase query on the edge's own group id: summed idf of its tokens, phrase frequency 1. */
function groupClauseScore(tokens: readonly string[], statistics: FieldStatistics | undefined): number {
  if (!statistics || tokens.length === 0) return 0;
  const idf = tokens.reduce((sum, token) => sum + bm25Idf(statistics, token), 0);
  return idf * bm25TermFrequency(1, tokens.length, statistics);
}

/** Neo4j's `vector.similarity.cosine`: (1 + cos) / 2, or null (no match) when a vector has zero norm. */
export function neo4jCosine(stored: readonly number[], query: readonly number[]): number | null {
  if (stored.length !== query.length) {
    throw new Error(`vector length ${query.length} does not match stored embedding length ${stored.length}`);
  }
  let dot = 0;
  let storedNorm = 0;
  let queryNorm = 0;
  stored.forEach((value, index) => {
    const other = query[index] ?? 0;
    dot += value * other;
    storedNorm += value * value;
    queryNorm += other * other;
  });
  if (storedNorm === 0 || queryNorm === 0) return null;
  return (1 + dot / (Math.sqrt(storedNorm) * Math.sqrt(queryNorm))) / 2;
}
