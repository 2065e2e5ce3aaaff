// Graphiti's entity resolution, deterministic part (node_operations.py resolve_extracted_nodes, graphiti-core 0.31.2).
import type { Embedder } from './embedder.js';
import type { EntityNode } from './graph-model.js';
import type { GraphReads } from './graph-store.js';
import { entityUuid, normalizeExact } from './graphiti-ids.js';

/** The group's entities for a list of extracted names. */
export interface ResolvedEntities {
  /** The node each exact-normalised name resolved to, existing or new. */
  byName: Map<string, EntityNode>;
  /** The nodes new to the graph (to be saved with the episode). */
  created: EntityNode[];
}

/**
 * Resolves names to the group's `Entity` nodes as Graphiti's `_resolve_with_similarity` does with its exact-name
 * candidates (`EntityNode.get_by_names` plus cosine hits): an existing node whose exact-normalised name equals the
 * extracted one IS that node, whoever wrote it (a Graphiti-written graph gets no duplicates). A name nobody has
 * gets a new node (uuid from group and name, name embedding, empty summary). Where Graphiti would ask the LLM
 * (several nodes share the normalised name) the oldest is taken (created_at, then uuid); its fuzzy MinHash match
 * and LLM dedup of different names are not modelled (graphiti-port.md).
 *
 * @example
 * const { byName, created } = await resolveEntities({ store, embedder }, group, ['Standard X', 'the System'], now);
 */
export async function resolveEntities(
  context: { store: Pick<GraphReads, 'getNodesByGroup'>; embedder: Embedder },
  group: string,
  names: readonly string[],
  now: Date,
): Promise<ResolvedEntities> {
  const existing = new Map<string, EntityNode>();
  const oldestFirst = (await context.store.getNodesByGroup(group)).sort(
    (a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.uuid < b.uuid ? -1 : 1),
  );
  for (const node of oldestFirst)
    if (!existing.has(normalizeExact(node.name))) existing.set(normalizeExact(node.name), node);

  const byName = new Map<string, EntityNode>();
  const missing: string[] = [];
  for (const name of names) {
    const key = normalizeExact(name);
    const found = existing.get(key);
    if (found) byName.set(key, found);
    else if (!missing.some((other) => normalizeExact(other) === key)) missing.push(name.trim());
  }
  const embeddings =
    missing.length > 0 ? await context.embedder.embed(missing.map((name) => name.replace(/\n/g, ' '))) : [];
  const created = missing.map(
    (name, index): EntityNode => ({
      uuid: entityUuid(group, name),
      name,
      group_id: group,
      created_at: now,
      summary: '',
      name_embedding: embeddings[index] ?? null,
    }),
  );
  for (const node of created) byName.set(normalizeExact(node.name), node);
  return { byName, created };
}
