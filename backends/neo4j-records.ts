// Converts between the GraphStore's nodes and edges and Neo4j property maps (datetimes as Neo4j DateTime).
import type { DateTime, Record as Neo4jRecord } from 'neo4j-driver';
import type { EntityEdge, EntityNode, ScoredEdge } from './graph-store.js';

type Neo4jModule = typeof import('neo4j-driver');
type Properties = Record<string, unknown>;

/** A UTC `DateTime` (offset 0, as Graphiti's timezone-aware UTC datetimes arrive through the Python driver). */
export function toDateTime(neo4j: Neo4jModule, date: Date): DateTime<number> {
  return new neo4j.types.DateTime(
    date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(),
    date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds() * 1_000_000, 0,
  );
}

/** A stored datetime as a JS Date: Neo4j temporal values (sub-millisecond digits dropped), ISO strings, or null. */
export function fromStored(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return new Date(value);
  if (typeof value === 'object' && 'toStandardDate' in value && typeof value.toStandardDate === 'function') {
    return value.toStandardDate() as Date;
  }
  throw new TypeError(`not a stored datetime: ${String(value)}`);
}

const stored = (neo4j: Neo4jModule, date: Date | null) => (date === null ? null : toDateTime(neo4j, date));
const numbers = (value: unknown): number[] | null => (Array.isArray(value) ? value.map(Number) : null);

/** The property map of an `Entity` node, with Graphiti's property names. */
export function nodeToProperties(neo4j: Neo4jModule, node: EntityNode): Properties {
  return {
    uuid: node.uuid, name: node.name, group_id: node.group_id, created_at: toDateTime(neo4j, node.created_at),
    summary: node.summary, name_embedding: node.name_embedding,
  };
}

/** An `Entity` node from its property map; extra properties (Graphiti attributes, labels) are not part of the contract. */
export function nodeFromProperties(properties: Properties): EntityNode {
  return {
    uuid: String(properties.uuid),
    name: String(properties.name ?? ''),
    group_id: String(properties.group_id ?? ''),
    created_at: fromStored(properties.created_at) ?? new Date(Number.NaN),
    summary: String(properties.summary ?? ''),
    name_embedding: numbers(properties.name_embedding),
  };
}

/** The property map of a `RELATES_TO` edge as Graphiti's bulk save writes it (end uuids included). */
export function edgeToProperties(neo4j: Neo4jModule, edge: EntityEdge): Properties {
  return {
    uuid: edge.uuid, source_node_uuid: edge.source_node_uuid, target_node_uuid: edge.target_node_uuid,
    name: edge.name, fact: edge.fact, fact_embedding: edge.fact_embedding, group_id: edge.group_id,
    episodes: [...edge.episodes], created_at: toDateTime(neo4j, edge.created_at),
    expired_at: stored(neo4j, edge.expired_at), valid_at: stored(neo4j, edge.valid_at), invalid_at: stored(neo4j, edge.invalid_at),
  };
}

/** A search row (`properties`, `source`, `target`, `score`) as a scored edge; end uuids come from the graph, and
 * properties outside the contract (Graphiti attributes, `stalebench_save_rank`) are dropped. */
export function scoredEdgeFromRecord(record: Neo4jRecord): ScoredEdge {
  const properties = record.get('properties') as Properties;
  const edge: EntityEdge = {
    uuid: String(properties.uuid),
    group_id: String(properties.group_id ?? ''),
    source_node_uuid: String(record.get('source')),
    target_node_uuid: String(record.get('target')),
    name: String(properties.name ?? ''),
    fact: String(properties.fact ?? ''),
    fact_embedding: numbers(properties.fact_embedding),
    episodes: Array.isArray(properties.episodes) ? properties.episodes.map(String) : [],
    created_at: fromStored(properties.created_at) ?? new Date(Number.NaN),
    valid_at: fromStored(properties.valid_at),
    invalid_at: fromStored(properties.invalid_at),
    expired_at: fromStored(properties.expired_at),
  };
  return { edge, score: Number(record.get('score')) };
}
