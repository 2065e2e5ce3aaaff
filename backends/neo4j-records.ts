// Converts between Graphiti's graph (graph-model.ts) and Neo4j property maps, and finds the properties a save changes.
import type { DateTime, Record as Neo4jRecord } from 'neo4j-driver';
import type { EntityEdge, EntityNode, EpisodicEdge, EpisodicNode, ScoredEdge } from './graph-model.js';

type Neo4jModule = typeof import('neo4j-driver');
type Properties = Record<string, unknown>;
type Kind = 'text' | 'date' | 'vector' | 'list';

/** Graphiti's stored properties of each item, with how each is typed (end-node uuids come from the graph). */
export const NODE_PROPERTIES = {
  uuid: 'text',
  name: 'text',
  group_id: 'text',
  created_at: 'date',
  summary: 'text',
  name_embedding: 'vector',
} as const satisfies Record<keyof EntityNode, Kind>;
export const EDGE_PROPERTIES = {
  uuid: 'text',
  name: 'text',
  fact: 'text',
  group_id: 'text',
  fact_embedding: 'vector',
  episodes: 'list',
  created_at: 'date',
  expired_at: 'date',
  valid_at: 'date',
  invalid_at: 'date',
  reference_time: 'date',
} as const satisfies Record<Exclude<keyof EntityEdge, 'source_node_uuid' | 'target_node_uuid'>, Kind>;
export const EPISODE_PROPERTIES = {
  uuid: 'text',
  name: 'text',
  group_id: 'text',
  source_description: 'text',
  source: 'text',
  content: 'text',
  entity_edges: 'list',
  created_at: 'date',
  valid_at: 'date',
} as const satisfies Record<keyof EpisodicNode, Kind>;
export const MENTION_PROPERTIES = { uuid: 'text', group_id: 'text', created_at: 'date' } as const;

/** A UTC `DateTime` (offset 0, as Graphiti's timezone-aware UTC datetimes arrive through the Python driver). */
export function toDateTime(neo4j: Neo4jModule, date: Date): DateTime<number> {
  return new neo4j.types.DateTime(
    date.getUTCFullYear(),
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    date.getUTCMilliseconds() * 1_000_000,
    0,
  );
}

/** A stored datetime as a JS Date: Neo4j temporal values (sub-millisecond digits dropped), ISO strings, or null. */
function fromStored(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return new Date(value);
  if (typeof value === 'object' && 'toStandardDate' in value && typeof value.toStandardDate === 'function') {
    return value.toStandardDate() as Date;
  }
  throw new TypeError(`not a stored datetime: ${String(value)}`);
}

const read = (kind: Kind, value: unknown): unknown => {
  if (kind === 'date') return fromStored(value);
  if (kind === 'vector') return Array.isArray(value) ? value.map(Number) : null;
  if (kind === 'list') return Array.isArray(value) ? value.map(String) : [];
  return value === null || value === undefined ? '' : String(value);
};
const same = (kind: Kind, stored: unknown, wanted: unknown): boolean => {
  if (kind === 'date') return (stored as Date | null)?.getTime() === (wanted as Date | null)?.getTime();
  if (kind === 'vector' || kind === 'list') {
    const [a, b] = [stored as unknown[] | null, wanted as unknown[] | null];
    return (
      a === b || (a !== null && b !== null && a.length === b.length && a.every((value, index) => value === b[index]))
    );
  }
  return stored === wanted;
};
const write = (neo4j: Neo4jModule, kind: Kind, value: unknown): unknown => {
  if (kind === 'date') return value === null ? null : toDateTime(neo4j, value as Date);
  return Array.isArray(value) ? [...value] : value;
};

/**
 * The properties to `SET n += ...` so that the stored item becomes `wanted`: everything (with `extras`, Graphiti's
 * shape-only properties) when nothing is stored, else only what differs from the stored map, compared as
 * Graphiti reads it (datetimes to the millisecond, so a Python-written microsecond is never rewritten). An
 * empty map means nothing changes; unknown stored properties are never touched.
 */
export function propertyChanges<T extends object>(
  neo4j: Neo4jModule,
  spec: Partial<Record<keyof T, Kind>>,
  stored: Properties | undefined,
  wanted: T,
  extras: Properties = {},
): Properties {
  const changes: Properties = stored === undefined ? { ...extras } : {};
  for (const [key, kind] of Object.entries(spec) as [keyof T & string, Kind][]) {
    const value = wanted[key];
    if (stored === undefined ? value !== null : !same(kind, read(kind, stored[key]), value))
      changes[key] = write(neo4j, kind, value);
  }
  return changes;
}

const fromProperties = <T>(spec: Record<string, Kind>, properties: Properties): T =>
  Object.fromEntries(Object.entries(spec).map(([key, kind]) => [key, read(kind, properties[key])])) as T;

/** An `Entity` node from its property map; other properties (attributes, labels) are not part of the contract. */
export function nodeFromProperties(properties: Properties): EntityNode {
  return fromProperties<EntityNode>(NODE_PROPERTIES, properties);
}

/** A `RELATES_TO` edge from its property map and its end nodes' uuids (read from the graph, as Graphiti does). */
export function edgeFromProperties(properties: Properties, source: unknown, target: unknown): EntityEdge {
  const edge = fromProperties<Omit<EntityEdge, 'source_node_uuid' | 'target_node_uuid'>>(EDGE_PROPERTIES, properties);
  return { ...edge, source_node_uuid: String(source), target_node_uuid: String(target) };
}

/** An `Episodic` node from its property map. */
export function episodeFromProperties(properties: Properties): EpisodicNode {
  return fromProperties<EpisodicNode>(EPISODE_PROPERTIES, properties);
}

/** A `MENTIONS` edge from its property map and its end nodes' uuids. */
export function mentionFromProperties(properties: Properties, source: unknown, target: unknown): EpisodicEdge {
  return {
    ...fromProperties<Omit<EpisodicEdge, 'source_node_uuid' | 'target_node_uuid'>>(MENTION_PROPERTIES, properties),
    source_node_uuid: String(source),
    target_node_uuid: String(target),
  };
}

/** A row with `properties`, `source` and `target` (and `score` for searches) as a scored edge. */
export function scoredEdgeFromRecord(record: Neo4jRecord): ScoredEdge {
  const edge = edgeFromProperties(record.get('properties') as Properties, record.get('source'), record.get('target'));
  return { edge, score: record.has('score') ? Number(record.get('score')) : Number.NaN };
}
