// Graphiti's graph reads on Neo4j (get_by_group_ids, get_between_nodes, retrieve_episodes): whatever wrote the graph.
import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { GraphReads } from './graph-store.js';
import {
  edgeFromProperties,
  episodeFromProperties,
  mentionFromProperties,
  nodeFromProperties,
} from './neo4j-records.js';

type Read = (query: string, parameters: Record<string, unknown>) => Promise<Neo4jRecord[]>;
type Properties = Record<string, unknown>;

const EDGE_ROW = 'properties(e) AS properties, n.uuid AS source, m.uuid AS target';
const NODES_BY_UUID = 'UNWIND $uuids AS uuid MATCH (n:Entity {uuid: uuid}) RETURN properties(n) AS properties';
const NODES_BY_GROUP =
  'MATCH (n:Entity) WHERE n.group_id = $group_id RETURN properties(n) AS properties ORDER BY n.uuid DESC';
const EDGES_BY_GROUP = `MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity) WHERE e.group_id = $group_id RETURN ${EDGE_ROW} ORDER BY e.uuid DESC`;
const EDGES_BETWEEN = `MATCH (n:Entity {uuid: $source})-[e:RELATES_TO]->(m:Entity {uuid: $target}) RETURN ${EDGE_ROW} ORDER BY e.uuid DESC`;
const EPISODES_BY_GROUP =
  'MATCH (e:Episodic) WHERE e.group_id = $group_id RETURN properties(e) AS properties ORDER BY e.uuid DESC';
const MENTIONS_BY_GROUP = `MATCH (n:Episodic)-[e:MENTIONS]->(m:Entity) WHERE e.group_id = $group_id RETURN ${EDGE_ROW} ORDER BY e.uuid DESC`;
// graph_data_operations.py `retrieve_episodes`: newest `last_n` by valid_at, then created_at; returned oldest first.
const RETRIEVE_EPISODES = (bySource: boolean) => `
MATCH (e:Episodic)
WHERE e.valid_at <= $reference_time AND e.group_id IN $group_ids${bySource ? ' AND e.source = $source' : ''}
RETURN properties(e) AS properties
ORDER BY e.valid_at DESC, e.created_at DESC
LIMIT $num_episodes`;

/**
 * The reads of `GraphReads`. Rows are converted with the contract's property names, so a graph graphiti-core wrote
 * (random uuids, `source_uuid` instead of `source_node_uuid`, attributes) reads like one stalebench wrote.
 *
 * @example
 * const reads = createNeo4jReads(read, { int: (value) => neo4j.int(value), dateTime: (date) => toDateTime(neo4j, date) });
 * const edges = await reads.getEdgesByGroup('r1__ns');
 */
export function createNeo4jReads(
  read: Read,
  values: { int: (value: number) => unknown; dateTime: (date: Date) => unknown },
): GraphReads {
  const properties = (record: Neo4jRecord) => record.get('properties') as Properties;
  const edges = (records: Neo4jRecord[]) =>
    records.map((record) => edgeFromProperties(properties(record), record.get('source'), record.get('target')));
  return {
    async getNodesByUuids(uuids) {
      const byUuid = new Map(
        (await read(NODES_BY_UUID, { uuids: [...uuids] }))
          .map((record) => nodeFromProperties(properties(record)))
          .map((node) => [node.uuid, node]),
      );
      return uuids.flatMap((uuid) => byUuid.get(uuid) ?? []);
    },
    getNodesByGroup: async (groupId) =>
      (await read(NODES_BY_GROUP, { group_id: groupId })).map((record) => nodeFromProperties(properties(record))),
    getEdgesByGroup: async (groupId) => edges(await read(EDGES_BY_GROUP, { group_id: groupId })),
    getEdgesBetweenNodes: async (source, target) => edges(await read(EDGES_BETWEEN, { source, target })),
    getEpisodesByGroup: async (groupId) =>
      (await read(EPISODES_BY_GROUP, { group_id: groupId })).map((record) => episodeFromProperties(properties(record))),
    async getMentionsByGroup(groupId) {
      return (await read(MENTIONS_BY_GROUP, { group_id: groupId })).map((record) =>
        mentionFromProperties(properties(record), record.get('source'), record.get('target')),
      );
    },
    async retrieveEpisodes({ groupIds, referenceTime, lastN, source }) {
      const parameters = {
        reference_time: values.dateTime(referenceTime),
        group_ids: [...groupIds],
        num_episodes: values.int(Math.max(0, Math.floor(lastN))),
        source: source ?? null,
      };
      const records = await read(RETRIEVE_EPISODES(source !== undefined), parameters);
      return records.map((record) => episodeFromProperties(properties(record))).reverse();
    },
  };
}
