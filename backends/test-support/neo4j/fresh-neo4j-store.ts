// Test helper: a Neo4j graph store on an emptied database whose edge fulltext index is rebuilt from scratch.
import { createNeo4jGraphStore, type Neo4jGraphStore, type Neo4jGraphStoreSettings } from '../../neo4j-graph-store.js';

/**
 * A store whose first `open()` deletes every node and drops `edge_name_and_fact`, then opens the store, which
 * recreates the index. Rebuilding matters for exact scores: Lucene can keep deleted documents in its BM25
 * statistics until segments merge (measured on 5.26.30: after an edge of another group was written and its
 * group deleted, "one reviewer" still scored 1.2836 instead of 1.0077). Tests sharing one server must
 * therefore run one at a time (one test file, or no file parallelism).
 *
 * @example
 * const store = freshNeo4jStore({ uri });
 * await store.open(); // empty database, fresh index
 */
export function freshNeo4jStore(settings: Neo4jGraphStoreSettings): Neo4jGraphStore {
  const store = createNeo4jGraphStore(settings);
  let wiped: Promise<void> | null = null;
  return Object.assign(Object.create(store) as Neo4jGraphStore, {
    open: () => (wiped ??= wipe(settings).then(() => store.open())),
  });
}

async function wipe(settings: Neo4jGraphStoreSettings): Promise<void> {
  const neo4j = (await import('neo4j-driver')).default;
  const auth = settings.user === undefined ? undefined : neo4j.auth.basic(settings.user, settings.password ?? '');
  const driver = neo4j.driver(settings.uri, auth);
  try {
    const database = settings.database ?? 'neo4j';
    await driver.executeQuery('MATCH (n) DETACH DELETE n', {}, { database });
    await driver.executeQuery('DROP INDEX edge_name_and_fact IF EXISTS', {}, { database });
  } finally {
    await driver.close();
  }
}
