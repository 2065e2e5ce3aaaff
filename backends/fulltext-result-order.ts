// The order in which Neo4j 5's fulltext procedures return hits when a limit is given (FulltextResultCollector).
// Graphiti's edge_fulltext_search keeps it: its `ORDER BY score DESC` is a stable sort over these rows.

/**
 * Orders `hits` (given in Lucene document order, i.e. the order the collector sees them) as Neo4j's
 * `FulltextResultCollector` does with a limit: a bounded binary min-heap on score keeps the best `limit` (a hit
 * equal to the current minimum does not replace it), then heap-sort pops ascending and the result is reversed.
 * Scores are ordered descending, but equal scores come out in heap order, not document order: two tied hits
 * come back last-indexed first. Measured on Neo4j 5.26.30 against this model on random corpora (the Neo4j
 * conformance suite checks it): identical for every limit.
 *
 * @example
 * neo4jFulltextOrder([{ id: 'a', score: 1 }, { id: 'b', score: 1 }], 10); // b, a
 */
export function neo4jFulltextOrder<T extends { score: number }>(hits: readonly T[], limit: number): T[] {
  const heap: T[] = []; // 1-based in the Java original; index 0 here is its ROOT
  const subordinate = (a: number, b: number): boolean => (heap[a] as T).score > (heap[b] as T).score;
  const swap = (a: number, b: number): void => {
    [heap[a], heap[b]] = [heap[b] as T, heap[a] as T];
  };
  const insert = (hit: T): void => {
    heap.push(hit);
    let index = heap.length - 1;
    while (index > 0 && subordinate(parent(index), index)) {
      swap(index, parent(index));
      index = parent(index);
    }
  };
  const removeTop = (): T => {
    const top = heap[0] as T;
    swap(0, heap.length - 1);
    heap.pop();
    let index = 0;
    for (let child = firstChild(index); child < heap.length; child = firstChild(index)) {
      if (child + 1 < heap.length && subordinate(child, child + 1)) child += 1;
      if (!subordinate(index, child)) break;
      swap(index, child);
      index = child;
    }
    return top;
  };
  const bound = Math.max(0, Math.floor(limit));
  for (const hit of hits) {
    if (heap.length < bound) insert(hit);
    else if (heap.length > 0 && (heap[0] as T).score < hit.score) {
      removeTop();
      insert(hit);
    }
  }
  const ascending: T[] = [];
  while (heap.length > 0) ascending.push(removeTop());
  return ascending.reverse();
}

// The Java heap is 1-based (children of i at 2i and 2i + 1); these are the same positions shifted by one.
const parent = (index: number): number => ((index + 1) >> 1) - 1;
const firstChild = (index: number): number => ((index + 1) << 1) - 1;
