// Cypher of stalebench's own housekeeping on Neo4j: listing and deleting run namespaces by group-id prefix, and
// the cross-process mutex around index-statistics-sensitive sections (none of this is Graphiti's schema).

/** Distinct group ids of nodes and relationships starting with `$prefix`. */
export const LIST_GROUPS = `
MATCH (n) WHERE n.group_id STARTS WITH $prefix RETURN DISTINCT n.group_id AS group_id
UNION
MATCH ()-[e]->() WHERE e.group_id STARTS WITH $prefix RETURN DISTINCT e.group_id AS group_id`;

/** Relationships of the prefix first (counted), then the nodes with whatever still touches them. */
export const DELETE_EDGES_BY_PREFIX =
  'MATCH ()-[e]->() WHERE e.group_id STARTS WITH $prefix DELETE e RETURN count(e) AS removed';
export const DELETE_NODES_BY_PREFIX =
  'MATCH (n) WHERE n.group_id STARTS WITH $prefix DETACH DELETE n RETURN count(n) AS removed';

/** One mutex node per name: the unique constraint makes concurrent MERGEs of a missing node wait for each other. */
export const MUTEX_CONSTRAINT =
  'CREATE CONSTRAINT stalebench_mutex_name IF NOT EXISTS FOR (m:StalebenchMutex) REQUIRE m.name IS UNIQUE';

/**
 * Takes the mutex: the SET write-locks the node until the transaction ends. Neo4j holds the lock in the server,
 * so it is released by commit, rollback, or the server rolling back the transaction of a client that died.
 */
export const TAKE_MUTEX =
  'MERGE (m:StalebenchMutex {name: $name}) SET m.holder = $holder, m.since = datetime() RETURN m.name AS name';

/** The mutex that serialises every seed → read → wipe of stalebench processes sharing one database. */
export const STATISTICS_MUTEX = 'fulltext-statistics';
