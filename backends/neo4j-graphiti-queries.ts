// Graphiti's Neo4j schema (indexes) and the Cypher of its edge writes and searches (graphiti-core 0.29.3 @ 993e081a).
import { InvalidInputError } from '../core/errors.js';
import { luceneSanitize, MAX_QUERY_LENGTH } from './lucene-bm25.js';

const IS_TYPE = /^[A-Z_]+$/; // relationship types are upper case, node labels capitalised
const pattern = (name: string): string => (IS_TYPE.test(name) ? `()-[e:${name}]-()` : `(n:${name})`);
// [index name, node label or relationship type, property] as graphiti_core/graph_queries.py `get_range_indices`.
const RANGE: readonly (readonly [string, string, string])[] = [
  ['entity_uuid', 'Entity', 'uuid'],
  ['episode_uuid', 'Episodic', 'uuid'],
  ['community_uuid', 'Community', 'uuid'],
  ['saga_uuid', 'Saga', 'uuid'],
  ['relation_uuid', 'RELATES_TO', 'uuid'],
  ['mention_uuid', 'MENTIONS', 'uuid'],
  ['has_member_uuid', 'HAS_MEMBER', 'uuid'],
  ['has_episode_uuid', 'HAS_EPISODE', 'uuid'],
  ['next_episode_uuid', 'NEXT_EPISODE', 'uuid'],
  ['entity_group_id', 'Entity', 'group_id'],
  ['episode_group_id', 'Episodic', 'group_id'],
  ['community_group_id', 'Community', 'group_id'],
  ['saga_group_id', 'Saga', 'group_id'],
  ['relation_group_id', 'RELATES_TO', 'group_id'],
  ['mention_group_id', 'MENTIONS', 'group_id'],
  ['has_episode_group_id', 'HAS_EPISODE', 'group_id'],
  ['next_episode_group_id', 'NEXT_EPISODE', 'group_id'],
  ['name_entity_index', 'Entity', 'name'],
  ['saga_name', 'Saga', 'name'],
  ['created_at_entity_index', 'Entity', 'created_at'],
  ['created_at_episodic_index', 'Episodic', 'created_at'],
  ['valid_at_episodic_index', 'Episodic', 'valid_at'],
  ['name_edge_index', 'RELATES_TO', 'name'],
  ['created_at_edge_index', 'RELATES_TO', 'created_at'],
  ['expired_at_edge_index', 'RELATES_TO', 'expired_at'],
  ['valid_at_edge_index', 'RELATES_TO', 'valid_at'],
  ['invalid_at_edge_index', 'RELATES_TO', 'invalid_at'],
];
// [index name, pattern, properties] as `get_fulltext_indices`: ON EACH makes every property its own Lucene field.
// (Graphiti names the episode variable `e` too.)
const FULLTEXT: readonly (readonly [string, string, readonly string[]])[] = [
  ['episode_content', 'Episodic', ['content', 'source', 'source_description', 'group_id']],
  ['node_name_and_summary', 'Entity', ['name', 'summary', 'group_id']],
  ['community_name', 'Community', ['name', 'group_id']],
  ['edge_name_and_fact', 'RELATES_TO', ['name', 'fact', 'group_id']],
];

/** Edge property holding the first-save rank; it orders score ties like the embedded store (see the store). */
export const SAVE_RANK = 'stalebench_save_rank';

/** Name and `CREATE ... IF NOT EXISTS` statement of every index: Graphiti's 27 range and 4 fulltext, plus ours. */
export const SCHEMA_STATEMENTS: readonly { name: string; statement: string }[] = [
  ...[...RANGE, [SAVE_RANK, 'RELATES_TO', SAVE_RANK] as const].map(([name, target, property]) => ({
    name,
    statement: `CREATE INDEX ${name} IF NOT EXISTS FOR ${pattern(target)} ON (${IS_TYPE.test(target) ? 'e' : 'n'}.${property})`,
  })),
  ...FULLTEXT.map(([name, target, properties]) => {
    const variable = target === 'Entity' || target === 'Community' ? 'n' : 'e';
    const fields = properties.map((property) => `${variable}.${property}`).join(', ');
    const on = target === 'Episodic' ? '(e:Episodic)' : pattern(target);
    return { name, statement: `CREATE FULLTEXT INDEX ${name} IF NOT EXISTS FOR ${on} ON EACH [${fields}]` };
  }),
];

const GROUP_ID = /^[a-zA-Z0-9_-]+$/;

/** Graphiti's `validate_group_ids`, plus the store contract's rule that a search names at least one group. */
export function validateGroupIds(groupIds: readonly string[]): void {
  const issues = groupIds.flatMap((groupId, index) =>
    GROUP_ID.test(groupId) ? [] : [{ path: `groupIds[${index}]`, message: `"${groupId}" is not [a-zA-Z0-9_-]+` }],
  );
  if (groupIds.length === 0) issues.push({ path: 'groupIds', message: 'at least one group id is required' });
  if (issues.length > 0) throw new InvalidInputError('graph store group ids', issues);
}

/**
 * The Lucene query of Graphiti's `fulltext_query`: `group_id:"<g>" AND (<sanitised query>)`, or `null` when the
 * word cap drops the BM25 branch. With several groups Graphiti writes `a OR b AND (q)`, which the classic
 * parser reads as `a +b +(q)` (only the last group can match, measured on Neo4j 5.26); the group clauses are
 * parenthesised here, which leaves the one-group query Graphiti sends byte for byte unchanged.
 */
export function graphitiFulltextQuery(query: string, groupIds: readonly string[]): string | null {
  const sanitized = luceneSanitize(query);
  if (sanitized.split(' ').length + groupIds.length >= MAX_QUERY_LENGTH) return null;
  const groups = groupIds.map((groupId) => `group_id:"${groupId}"`).join(' OR ');
  return `${groupIds.length > 1 ? `(${groups})` : groups} AND (${sanitized})`;
}

const EDGE_RETURN = `properties(e) AS properties, startNode(e).uuid AS source, endNode(e).uuid AS target, score`;
const TIE_ORDER = `score DESC, e.${SAVE_RANK} ASC, e.uuid ASC`;

/** Graphiti's `edge_fulltext_search`: index top `$limit`, then the WHERE filter, then ordered by score. */
export const fulltextSearchCypher = (where: string): string => `
CALL db.index.fulltext.queryRelationships("edge_name_and_fact", $query, {limit: $limit})
YIELD relationship AS rel, score
MATCH (n:Entity)-[e:RELATES_TO {uuid: rel.uuid}]->(m:Entity)
WHERE e.group_id IN $group_ids AND ${where}
WITH e, score ORDER BY ${TIE_ORDER} LIMIT $limit
RETURN ${EDGE_RETURN}`;

/**
 * Graphiti's `edge_similarity_search`: filter, normalised cosine, strict `> $min_score`, best `$limit`. The
 * non-zero guard is ours: Neo4j raises on a zero-norm vector, where the contract says it never matches.
 */
export const similaritySearchCypher = (where: string): string => `
MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity)
WHERE e.group_id IN $group_ids AND ${where} AND any(x IN e.fact_embedding WHERE x <> 0)
WITH DISTINCT e, vector.similarity.cosine(e.fact_embedding, $search_vector) AS score
WHERE score > $min_score
WITH e, score ORDER BY ${TIE_ORDER} LIMIT $limit
RETURN ${EDGE_RETURN}`;

/** Graphiti's bulk node save: merge on uuid and replace the property map. */
export const SAVE_NODES = `UNWIND $nodes AS node MERGE (n:Entity {uuid: node.uuid}) SET n = node`;

/** Graphiti's bulk edge save (merge on uuid, replace the property map), keeping an edge's first save rank. */
export const SAVE_EDGES = `
UNWIND $edges AS edge
MATCH (source:Entity {uuid: edge.source_node_uuid})
MATCH (target:Entity {uuid: edge.target_node_uuid})
MERGE (source)-[e:RELATES_TO {uuid: edge.uuid}]->(target)
WITH e, edge, coalesce(e.${SAVE_RANK}, edge.${SAVE_RANK}) AS rank
SET e = edge
SET e.${SAVE_RANK} = rank
RETURN edge.uuid AS uuid`;

/** The highest save rank in use (index-backed). */
export const LAST_SAVE_RANK = `MATCH ()-[e:RELATES_TO]->() WHERE e.${SAVE_RANK} IS NOT NULL RETURN e.${SAVE_RANK} AS rank ORDER BY rank DESC LIMIT 1`;

/** Uuids among `$uuids` that name a stored `Entity` node. */
export const EXISTING_NODES = `UNWIND $uuids AS uuid MATCH (n:Entity {uuid: uuid}) RETURN DISTINCT n.uuid AS uuid`;

/** The group's edges, then every Entity, Episodic and Community node of the group (Graphiti's `clear_data`). */
export const DELETE_GROUP = [
  'MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $group_id DELETE e',
  ...['Entity', 'Episodic', 'Community'].map((label) => `MATCH (n:${label}) WHERE n.group_id = $group_id DETACH DELETE n`),
];
