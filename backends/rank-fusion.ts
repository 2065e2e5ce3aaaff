// Reciprocal rank fusion exactly as Graphiti's `rrf` (graphiti_core/search/search_utils.py, unchanged from 993e081a to 0.31.2).

/** One fused id with its summed reciprocal-rank score. */
export interface FusedRank {
  /** The id (edge uuid) as it appeared in the input lists. */
  id: string;
  /** Sum over the lists of 1 / (rank + rankConstant − 1), rank counted from 1. */
  score: number;
}

/**
 * Fuses ranked id lists. Each list adds `1 / (i + rankConstant)` for its 0-based position `i`; a repeated id
 * in one list adds once per occurrence. The result is sorted by score descending with a stable sort, so ties
 * keep first-seen order: the first list's order, then ids that only later lists contain (Graphiti passes
 * BM25 before cosine). Ids scoring below `minScore` are dropped (Graphiti's `reranker_min_score`, default 0,
 * compared with `>=`, so nothing is dropped by default).
 *
 * @example
 * reciprocalRankFusion([['a', 'b'], ['b', 'c']]); // b 1.5, a 1, c 0.5
 */
export function reciprocalRankFusion(
  lists: readonly (readonly string[])[],
  rankConstant = 1,
  minScore = 0,
): FusedRank[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (index + rankConstant));
    });
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score)
    .filter((entry) => entry.score >= minScore);
}
