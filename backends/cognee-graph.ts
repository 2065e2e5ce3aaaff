// cognee's knowledge graph per dataset, kept as data: TextDocument ← is_part_of ← DocumentChunk → contains → Entity,
// plus the entity-to-entity edges cognify's LLM step extracts. CHUNKS search never reads it.
import type { ExtractedEdge } from './extraction-model.js';
import { pythonUuid5 as uuid5 } from '#python-compat/index.js';
import type { TextChunk } from './cognee-chunker.js';

/** A graph node (the DataPoint types cognify writes, trimmed to what we keep). */
export interface CogneeNode {
  /** Node id (uuid). */
  id: string;
  /** DataPoint type. */
  type: 'TextDocument' | 'DocumentChunk' | 'Entity';
  /** Document name (`text_<md5>`), chunk text, or entity name. */
  name: string;
}

/** A graph edge: `source --[relationship_name]--> target`. */
export interface CogneeEdge {
  source: string;
  target: string;
  /** `is_part_of`, `contains`, or the relation the extraction model named. */
  relationship_name: string;
}

/** One dataset's graph. Nodes are keyed by id, so a re-extracted entity re-attaches to the same node. */
export interface CogneeGraph {
  nodes: Map<string, CogneeNode>;
  edges: CogneeEdge[];
}

/** An empty graph. */
export function createCogneeGraph(): CogneeGraph {
  return { nodes: new Map(), edges: [] };
}

/**
 * cognee's entity id: `generate_node_id` normalisation (lowercase, spaces → `_`, apostrophes dropped) under the
 * class name, so `Entity:<name>` is deterministic and shared by every document that names the entity.
 */
export function entityId(name: string): string {
  return uuid5(`Entity:${name.toLowerCase().replace(/ /g, '_').replace(/'/g, '')}`);
}

/**
 * Adds one document, its chunks and each chunk's extracted edges (entities become nodes; each chunk `contains`
 * the entities it mentions; the relation becomes an entity edge). Edges already present are not duplicated.
 */
export function addDocumentToGraph(
  graph: CogneeGraph,
  document: { id: string; name: string },
  chunks: readonly { chunk: TextChunk; edges: readonly ExtractedEdge[] }[],
): void {
  const addNode = (node: CogneeNode) => {
    if (!graph.nodes.has(node.id)) graph.nodes.set(node.id, node);
  };
  const addEdge = (edge: CogneeEdge) => {
    const same = (other: CogneeEdge) =>
      other.source === edge.source &&
      other.target === edge.target &&
      other.relationship_name === edge.relationship_name;
    if (!graph.edges.some(same)) graph.edges.push(edge);
  };
  addNode({ id: document.id, type: 'TextDocument', name: document.name });
  for (const { chunk, edges } of chunks) {
    addNode({ id: chunk.id, type: 'DocumentChunk', name: chunk.text });
    addEdge({ source: chunk.id, target: document.id, relationship_name: 'is_part_of' });
    for (const edge of edges) {
      const [source, target] = [edge.source, edge.target].map((name) => {
        const id = entityId(name);
        addNode({ id, type: 'Entity', name });
        addEdge({ source: chunk.id, target: id, relationship_name: 'contains' });
        return id;
      });
      if (source && target) addEdge({ source, target, relationship_name: edge.relation.toLowerCase() });
    }
  }
}
