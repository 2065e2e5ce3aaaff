// Raw access to Graphiti's graph in Neo4j through a plain neo4j-driver session: Cypher only, no Graphiti or store code.
import { randomUUID } from 'node:crypto';
import type { Driver } from 'neo4j-driver';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import { EDGE_BODY_FIELDS, EDGE_LABEL_FIELDS, type WriteOrder } from './graphiti-session.js';
import type { ContextName, JsonValue, RawAccess, RawRecord, RawSnapshot } from './integrity-target.js';

/** How to reach the server. */
export interface Neo4jConnection {
  uri: string;
  user?: string;
  password?: string;
}

type Properties = Record<string, unknown>;
const DATETIMES = new Set(['created_at', 'valid_at', 'invalid_at', 'expired_at']);

/** A property value as canonical JSON: temporal values by their ISO text, integers as numbers. */
function plain(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object') {
    if ('toNumber' in value && typeof value.toNumber === 'function') return value.toNumber() as number;
    return String(value);
  }
  return value as JsonValue;
}

const shown = (parameters: Properties): string =>
  JSON.stringify(parameters, (_key, value: unknown) =>
    Array.isArray(value) && value.length > 8 ? `[${value.length} values]` : value,
  );

/** Opens a plain driver (the neo4j-driver package only). */
export async function openPlainDriver(connection: Neo4jConnection): Promise<Driver> {
  const neo4j = (await import('neo4j-driver')).default;
  const auth = connection.user === undefined ? undefined : neo4j.auth.basic(connection.user, connection.password ?? '');
  return neo4j.driver(connection.uri, auth, { connectionTimeout: 5_000 });
}

/**
 * Raw access to the edges of two groups (one per context; the eval pipeline's Graphiti groups work the same way). Records are `RELATES_TO` edges. Their
 * order is the write order the session recorded in `order` (nothing on a Graphiti edge orders it, and stalebench adds nothing to Graphiti's edges):
 * a record's position is its index there, an edge the session never wrote comes after, by uuid; a forged edge is appended. T9's copy is every node and
 * relationship of both groups.
 */
export function graphNeo4jRawAccess(
  connection: Neo4jConnection,
  byContext: Record<ContextName, string>,
  log: (command: string) => void,
  order: WriteOrder = new Map(),
): RawAccess {
  const groups = [byContext.A, byContext.B];
  const cypher = async (query: string, parameters: Properties, logged: boolean): Promise<Properties[]> => {
    const driver = await openPlainDriver(connection);
    const session = driver.session();
    try {
      const result = await session.run(query, parameters);
      if (logged) log(`cypher-shell "${query.replace(/\s+/g, ' ').trim()}" -- ${shown(parameters)}`);
      return result.records.map((record) => record.toObject() as Properties);
    } finally {
      await session.close();
      await driver.close();
    }
  };
  const edit = (query: string, parameters: Properties) =>
    cypher(`MATCH ()-[e:RELATES_TO {uuid: $uuid}]->() ${query}`, parameters, true);
  const contextOf = (group: string): ContextName => (group === byContext.A ? 'A' : 'B');
  const positionOf = (group: string, uuid: string): number => {
    const written = order.get(contextOf(group)) ?? [];
    if (!written.includes(uuid)) order.set(contextOf(group), [...written, uuid]);
    return (order.get(contextOf(group)) ?? []).indexOf(uuid);
  };
  const toRaw = (properties: Properties): RawRecord => ({
    slot: String(properties.uuid),
    owner: String(properties.group_id),
    position: positionOf(String(properties.group_id), String(properties.uuid)),
    text: String(properties.fact ?? ''),
    body: canonicalJson(Object.fromEntries(EDGE_BODY_FIELDS.map((field) => [field, plain(properties[field])]))),
    labels: Object.fromEntries(EDGE_LABEL_FIELDS.map((field) => [field, plain(properties[field])])),
  });
  return {
    list: async (context: ContextName) =>
      (
        await cypher(
          'MATCH (:Entity)-[e:RELATES_TO]->(:Entity) WHERE e.group_id = $group RETURN properties(e) AS e ORDER BY e.uuid',
          { group: byContext[context] },
          false,
        )
      )
        .map((row) => toRaw(row.e as Properties))
        .sort((a, b) => Number(a.position) - Number(b.position)),
    async writeBody(record, body) {
      const moved = parseBody(body);
      const sets = EDGE_BODY_FIELDS.map((field) =>
        DATETIMES.has(field)
          ? `e.${field} = CASE WHEN $${field} IS NULL THEN null ELSE datetime($${field}) END`
          : `e.${field} = $${field}`,
      );
      await edit(`SET ${sets.join(', ')}`, {
        uuid: record.slot,
        ...Object.fromEntries(EDGE_BODY_FIELDS.map((field) => [field, moved[field] ?? null])),
      });
    },
    async remove(record) {
      await edit('DELETE e', { uuid: record.slot });
    },
    async changeMeaning(record) {
      await edit('SET e.fact = $fact', { uuid: record.slot, fact: changedNumber(record.text).text });
    },
    async forge(tip) {
      await cypher(
        'MATCH (s)-[t:RELATES_TO {uuid: $tip}]->(o) CREATE (s)-[e:RELATES_TO]->(o) SET e = properties(t), e.uuid = $uuid, e.fact = $fact',
        { tip: tip.slot, uuid: randomUUID(), fact: changedNumber(tip.text).text },
        true,
      );
    },
    async relabel(record) {
      await edit('SET e.created_at = e.created_at - duration({days: 30})', { uuid: record.slot });
    },
    async unrevoke(record) {
      await edit('REMOVE e.expired_at, e.invalid_at', { uuid: record.slot });
    },
    async snapshot(): Promise<RawSnapshot> {
      const nodes = await cypher(
        'MATCH (n) WHERE n.group_id IN $groups RETURN labels(n) AS labels, properties(n) AS props',
        { groups },
        false,
      );
      const edges = await cypher(
        'MATCH (a)-[r]->(b) WHERE r.group_id IN $groups RETURN type(r) AS type, properties(r) AS props, a.uuid AS a, b.uuid AS b',
        { groups },
        false,
      );
      log(
        `cypher-shell "MATCH (n) WHERE n.group_id IN $groups ..." -- copied ${nodes.length} nodes and ${edges.length} relationships of ${groups.join(', ')}`,
      );
      return {
        async restore() {
          await cypher('MATCH (n) WHERE n.group_id IN $groups DETACH DELETE n', { groups }, true);
          for (const node of nodes) {
            const labels = (node.labels as string[]).map((label) => `:\`${label.replace(/`/g, '``')}\``).join('');
            await cypher(`CREATE (n${labels}) SET n = $props`, { props: node.props }, false);
          }
          for (const edge of edges) {
            const type = `\`${String(edge.type).replace(/`/g, '``')}\``;
            await cypher(
              `MATCH (a {uuid: $a}), (b {uuid: $b}) CREATE (a)-[r:${type}]->(b) SET r = $props`,
              { a: edge.a, b: edge.b, props: edge.props },
              false,
            );
          }
          log(
            `cypher-shell "CREATE ... SET n = $props" / "CREATE (a)-[r]->(b) SET r = $props" -- restored ${nodes.length} nodes and ${edges.length} relationships from the copy`,
          );
        },
      };
    },
  };
}
