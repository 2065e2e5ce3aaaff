// Provenance of Graphiti journal edges (issue #19 item 1): kept per group beside the graph, resolved on a taint read.
import type { EntityEdge, GraphStore } from './graph-store.js';
import type { InsertRequest, MemoryRecord, SeedMode, ModeSupport } from './memory-backend.js';
import { createProvenanceResolver, provenanceFields, refuseProvenance, taintFiltersOut } from './provenance.js';

/** The relation journals are written under (stale-retrieval.md §12 step 3): such an edge is derived by definition. */
const JOURNAL_RELATION = 'DECISION';
const NATURAL_REASON =
  'an ingested journal becomes whatever edges add_episode extracts, merges or invalidates; tying those back to the episode is not modelled';

/** What the graphiti backend can keep provenance for: direct journal edges only. */
export const GRAPHITI_PROVENANCE: Record<SeedMode, ModeSupport> = {
  direct: { supported: true },
  natural: { supported: false, reason: NATURAL_REASON },
};

/** A taint read's view of one group: the edges a filtered read may return, and the fields a derived edge carries. */
export interface GroupTaint {
  /** Uuids of the group's edges that are not tainted (`revoked` or `unknown`), for `SearchFilters.edge_uuids`. */
  untainted: string[];
  /** The record with `derived_from` / `derived_from_status` added when its edge is derived; others unchanged. */
  annotate(record: MemoryRecord): MemoryRecord;
}

/**
 * The provenance book of one backend instance. Graphiti edges keep no caller metadata here (graphiti-backend.ts
 * `NO_METADATA`), so, like the per-group uuid counter, the lists live in this process and go with `reset`. Whether
 * an ancestor is revoked is read from the graph at each taint read (`expired_at` set, the store filter's notion), so
 * a revocation after the journal was written counts. A `DECISION` edge with no list here (written without
 * provenance, by an older run or another process) is `unknown`, never clean.
 */
export function createGraphitiProvenance(store: GraphStore) {
  const lists = new Map<string, Map<string, readonly string[]>>();
  return {
    /** Refuses provenance on a natural write (n/a for the experiments; thrown if asked anyway). */
    check(request: InsertRequest): void {
      if (request.writes.mode === 'natural') refuseProvenance('graphiti', request, NATURAL_REASON);
    },
    /** Records that every edge of one direct write derives from `derivedFrom`. */
    record(group: string, edges: readonly EntityEdge[], derivedFrom: readonly string[]): void {
      const book = lists.get(group) ?? new Map<string, readonly string[]>();
      for (const edge of edges) book.set(edge.uuid, [...derivedFrom]);
      lists.set(group, book);
    },
    /** Resolves every edge of the group against the graph as it is now. */
    async resolve(group: string): Promise<GroupTaint> {
      const edges = new Map((await store.getEdgesByGroup(group)).map((edge) => [edge.uuid, edge]));
      const book = lists.get(group);
      const listOf = (id: string): readonly string[] | null | undefined => {
        const list = book?.get(id);
        if (list !== undefined) return list;
        return edges.get(id)?.name === JOURNAL_RELATION ? null : undefined;
      };
      const status = createProvenanceResolver({
        revoked: (id) => (edges.has(id) ? edges.get(id)!.expired_at !== null : undefined),
        derivedFrom: listOf,
      });
      return {
        untainted: [...edges.keys()].filter((id) => !taintFiltersOut(status(id))),
        annotate(record) {
          const resolved = status(record.id);
          if (resolved === null) return record;
          return { ...record, fields: { ...record.fields, ...provenanceFields(listOf(record.id) ?? null, resolved) } };
        },
      };
    },
    /** Drops a group's lists (its edges are gone). */
    forget(group: string): void {
      lists.delete(group);
    },
  };
}
