// The `store-filter` arm (reference `retrieval_filter`): the memory system's own filtered read (stale-retrieval.md §9).
import type { DefenceV1 } from './defence-v1.js';

/**
 * Asks the system for its filtered read (its `storeFilter`, e.g. Graphiti's `expired_at IS NULL`). A system without
 * one answers with its default read (the grid records `read: 'filtered'` either way, as the reference does).
 */
export const storeFilterDefence = {
  specificationVersion: 'v1',
  id: 'store-filter',
  label: 'store filter',
  arm: { referenceName: 'retrieval_filter' },
  uses: [],
  create: () => ({ read: 'filtered' }),
} as const satisfies DefenceV1;
