// Graphiti's Neo4j schema (indexes) and the Cypher of its edge searches (graphiti-core 0.31.2, graph_queries.py, search_utils.py).
import { InvalidInputError } from '#core/errors.js';
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

/** Name and `CREATE ... IF NOT EXISTS` statement of every index: Graphiti's 27 range and 4 fulltext indexes. */
export const SCHEMA_STATEMENTS: readonly { name: string; statement: string }[] = [
  ...RANGE.map(([name, target, property]) => ({
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

const EDGE_RETURN = 'properties(e) AS properties, startNode(e).uuid AS source, endNode(e).uuid AS target, score';

/**
 * Graphiti's `edge_fulltext_search` on Neo4j: index top `$limit`, the WHERE filter, then `ORDER BY score DESC` with no
 * tie-breaker, so ties keep the order the index returned them in (`fulltext-result-order.ts`), as in Graphiti.
 */
export const fulltextSearchCypher = (where: string): string => `
CALL db.index.fulltext.queryRelationships("edge_name_and_fact", $query, {limit: $limit})
YIELD relationship AS rel, score
MATCH (n:Entity)-[e:RELATES_TO {uuid: rel.uuid}]->(m:Entity)
WHERE ${where} AND e.group_id IN $group_ids
WITH e, score, n, m
RETURN ${EDGE_RETURN}
ORDER BY score DESC
LIMIT $limit`;

/**
 * Graphiti's `edge_similarity_search` on Neo4j: filter, normalised cosine, strict `> $min_score`, best first. Two
 * additions: the non-zero guard (Neo4j raises on a zero-norm vector, where the contract says it never matches), and
 * `e.uuid` as tie-breaker. Graphiti leaves cosine ties (equal embeddings, e.g. a fact written twice) in the order
 * the planner's traversal yields rows, which follows relationship chains and reused ids (measured: neither creation
 * nor id order); the uuid makes them the same on every engine and every run (graphiti-port.md).
 */
export const similaritySearchCypher = (where: string): string => `
MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity)
WHERE ${where} AND e.group_id IN $group_ids AND any(x IN e.fact_embedding WHERE x <> 0)
WITH DISTINCT e, n, m, vector.similarity.cosine(e.fact_embedding, $search_vector) AS score
WHERE score > $min_score
RETURN ${EDGE_RETURN}
ORDER BY score DESC, e.uuid ASC
LIMIT $limit`;

/** The group's edges, then every Entity, Episodic and Community node of the group (Graphiti's `clear_data`). */
export const DELETE_GROUP = [
  'MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $group_id DELETE e',
  ...['Entity', 'Episodic', 'Community', 'Saga'].map(
    (label) => `MATCH (n:${label}) WHERE n.group_id = $group_id DETACH DELETE n`,
  ),
];
