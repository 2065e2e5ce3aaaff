// Graphiti's save paths on Neo4j (EntityNode.save, EntityEdge.save, add_nodes_and_edges_bulk), setting only what changes.
import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { EntityEdge, EpisodeData } from './graph-model.js';
import type { GraphWrites } from './graph-store.js';
import {
  EDGE_PROPERTIES,
  EPISODE_PROPERTIES,
  MENTION_PROPERTIES,
  NODE_PROPERTIES,
  propertyChanges,
} from './neo4j-records.js';

type Neo4jModule = typeof import('neo4j-driver');
type Run = (query: string, parameters?: Record<string, unknown>) => Promise<Neo4jRecord[]>;
type Properties = Record<string, unknown>;

/** What the writes need from the store: the driver module and one write transaction per call. */
export interface Neo4jWriteAccess {
  /** The loaded neo4j-driver module (datetime values). */
  neo4j: () => Neo4jModule;
  /** Runs `work` in one write transaction. */
  transaction: <T>(work: (run: Run) => Promise<T>) => Promise<T>;
}

const STORED = {
  Entity: 'UNWIND $uuids AS uuid MATCH (n:Entity {uuid: uuid}) RETURN n.uuid AS uuid, properties(n) AS properties',
  Episodic: 'UNWIND $uuids AS uuid MATCH (n:Episodic {uuid: uuid}) RETURN n.uuid AS uuid, properties(n) AS properties',
  RELATES_TO:
    'UNWIND $uuids AS uuid MATCH ()-[e:RELATES_TO {uuid: uuid}]->() RETURN e.uuid AS uuid, properties(e) AS properties',
  MENTIONS:
    'UNWIND $uuids AS uuid MATCH ()-[e:MENTIONS {uuid: uuid}]->() RETURN e.uuid AS uuid, properties(e) AS properties',
} as const;
const SET_NODES = (label: string) => `UNWIND $rows AS row MERGE (n:${label} {uuid: row.uuid}) SET n += row.set`;
const CREATE_EDGES = (type: string, sourceLabel: string) => `
UNWIND $rows AS row
MATCH (source:${sourceLabel} {uuid: row.source})
MATCH (target:Entity {uuid: row.target})
MERGE (source)-[e:${type} {uuid: row.uuid}]->(target)
SET e += row.set`;
const UPDATE_EDGES = (type: string) => `UNWIND $rows AS row MATCH ()-[e:${type} {uuid: row.uuid}]->() SET e += row.set`;
// A bulk save that lists one edge twice (resolved, then invalidated) leaves the last values, as Graphiti's UNWIND does.
const lastOfEach = (edges: readonly EntityEdge[]): EntityEdge[] => [
  ...new Map(edges.map((edge) => [edge.uuid, edge])).values(),
];
const EXISTING = (label: string) =>
  `UNWIND $uuids AS uuid MATCH (n:${label} {uuid: uuid}) RETURN DISTINCT n.uuid AS uuid`;

/**
 * The three write paths. Every save reads the stored property maps first (in the same transaction) and SETs with
 * `+=` only the properties that differ, so an edge Graphiti wrote keeps `reference_time`, `source_uuid`, its
 * attributes and anything else when stalebench expires it. Embeddings are written with a plain `SET` (64-bit
 * floats) instead of Graphiti's `db.create.set*VectorProperty` (32-bit; it fails on a null embedding, which the
 * contract allows); `vector.similarity.cosine` and graphiti-core read both.
 *
 * @example
 * const writes = createNeo4jWrites({ neo4j: () => neo4j, transaction: (work) => session.executeWrite(...) });
 * await writes.saveEdges([edge]);
 */
export function createNeo4jWrites(access: Neo4jWriteAccess): GraphWrites {
  const stored = async (
    run: Run,
    kind: keyof typeof STORED,
    uuids: readonly string[],
  ): Promise<Map<string, Properties>> =>
    new Map(
      (await run(STORED[kind], { uuids: [...new Set(uuids)] })).map((record) => [
        String(record.get('uuid')),
        record.get('properties') as Properties,
      ]),
    );
  const requireExisting = async (
    run: Run,
    label: string,
    uuids: readonly string[],
    owner: (uuid: string) => string,
  ): Promise<void> => {
    const found = new Set(
      (await run(EXISTING(label), { uuids: [...new Set(uuids)] })).map((record) => String(record.get('uuid'))),
    );
    // Graphiti's save queries MATCH both end nodes and silently write nothing without them; here it is an error.
    const missing = uuids.find((uuid) => !found.has(uuid));
    if (missing !== undefined) throw new Error(`${owner(missing)}: end node ${missing} has not been saved`);
  };
  const setNodes = async (
    run: Run,
    label: 'Entity' | 'Episodic',
    items: readonly { uuid: string }[],
    spec: Properties,
    extras: Properties,
  ): Promise<void> => {
    const before = await stored(
      run,
      label,
      items.map((item) => item.uuid),
    );
    const rows = items
      .map((item) => ({
        uuid: item.uuid,
        set: propertyChanges(
          access.neo4j(),
          spec as never,
          before.get(item.uuid),
          item,
          before.has(item.uuid) ? {} : extras,
        ),
      }))
      .filter((row) => Object.keys(row.set).length > 0);
    if (rows.length > 0) await run(SET_NODES(label), { rows });
  };
  /**
   * Updates the changed properties of the stored edges in this transaction; returns the rows of the new ones for
   * `createEdges` (MENTIONS are created here too: they are not in any index stalebench orders by).
   */
  const setEdges = async (
    run: Run,
    type: 'RELATES_TO' | 'MENTIONS',
    items: readonly EntityEdge[] | EpisodeData['mentions'],
    endNames: [string, string] | null,
  ): Promise<Properties[]> => {
    const before = await stored(
      run,
      type,
      items.map((item) => item.uuid),
    );
    const spec = type === 'RELATES_TO' ? EDGE_PROPERTIES : MENTION_PROPERTIES;
    const created: Properties[] = [];
    const updated: Properties[] = [];
    for (const item of items) {
      const ends = endNames ? { [endNames[0]]: item.source_node_uuid, [endNames[1]]: item.target_node_uuid } : {};
      const set = propertyChanges(access.neo4j(), spec as never, before.get(item.uuid), item, ends);
      if (!before.has(item.uuid))
        created.push({ uuid: item.uuid, source: item.source_node_uuid, target: item.target_node_uuid, set });
      else if (Object.keys(set).length > 0) updated.push({ uuid: item.uuid, set });
    }
    if (updated.length > 0) await run(UPDATE_EDGES(type), { rows: updated });
    if (type === 'MENTIONS' && created.length > 0) await run(CREATE_EDGES(type, 'Episodic'), { rows: created });
    return type === 'MENTIONS' ? [] : created;
  };
  /**
   * Creates new RELATES_TO edges one transaction each, in order. Lucene numbers the documents of ONE transaction by
   * relationship id, which Neo4j reuses after deletes, so Graphiti's one-transaction bulk save leaves ties among an
   * episode's new edges in an order nobody can predict; one commit per edge numbers them in creation order, the
   * order the embedded store models (graphiti-port.md).
   */
  const createEdges = async (rows: readonly Properties[]): Promise<void> => {
    for (const row of rows)
      await access.transaction((run) => run(CREATE_EDGES('RELATES_TO', 'Entity'), { rows: [row] }));
  };
  const edgeEnds = (edges: readonly EntityEdge[]) =>
    edges.flatMap((edge) => [edge.source_node_uuid, edge.target_node_uuid]);
  const ownerOf =
    (edges: readonly { uuid: string; source_node_uuid: string; target_node_uuid: string }[], kind: string) =>
    (end: string) =>
      `${kind} ${edges.find((edge) => edge.source_node_uuid === end || edge.target_node_uuid === end)?.uuid ?? '?'}`;

  return {
    async saveNodes(nodes) {
      // EntityNode.save: `SET n = $entity_data` with no `labels` property (the bulk path writes one).
      await access.transaction((run) => setNodes(run, 'Entity', nodes, NODE_PROPERTIES, {}));
    },
    async saveEdges(edges) {
      for (const edge of edges) {
        // EntityEdge.save: its own query, and edge_data names the end uuids source_uuid / target_uuid.
        await access.transaction(async (run) => {
          await requireExisting(run, 'Entity', edgeEnds([edge]), ownerOf([edge], 'edge'));
          const created = await setEdges(run, 'RELATES_TO', [edge], ['source_uuid', 'target_uuid']);
          if (created.length > 0) await run(CREATE_EDGES('RELATES_TO', 'Entity'), { rows: created });
        });
      }
    },
    async saveEpisodeData(data) {
      const created = await access.transaction(async (run) => {
        await setNodes(run, 'Episodic', data.episodes, EPISODE_PROPERTIES, {});
        await setNodes(run, 'Entity', data.nodes, NODE_PROPERTIES, { labels: ['Entity'] });
        await requireExisting(
          run,
          'Episodic',
          data.mentions.map((mention) => mention.source_node_uuid),
          ownerOf(data.mentions, 'MENTIONS'),
        );
        await requireExisting(
          run,
          'Entity',
          [...data.mentions.map((mention) => mention.target_node_uuid), ...edgeEnds(data.edges)],
          ownerOf([...data.mentions, ...data.edges], 'edge'),
        );
        await setEdges(run, 'MENTIONS', data.mentions, null); // EPISODIC_EDGE_SAVE sets group_id and created_at only
        return setEdges(run, 'RELATES_TO', lastOfEach(data.edges), ['source_node_uuid', 'target_node_uuid']);
      });
      await createEdges(created);
    },
  };
}
