// GraphStore on a Neo4j 5 server with Graphiti's schema and edge queries; neo4j-driver is imported on open().
import type { Driver, Record as Neo4jRecord } from 'neo4j-driver';
import { BackendUnavailableError, EvalError, UnsupportedFeatureError } from '#core/errors.js';
import type { GraphStore, ScoredEdge } from './graph-store.js';
import { compileCypherFilter } from './neo4j-filter-query.js';
import { createNeo4jReads } from './neo4j-graph-reads.js';
import { createNeo4jWrites } from './neo4j-graph-writes.js';
import * as cypher from './neo4j-graphiti-queries.js';
import * as housekeeping from './neo4j-namespace-queries.js';
import { scoredEdgeFromRecord, toDateTime } from './neo4j-records.js';

/** Connection settings of the Neo4j graph store (the run reads them from NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD). */
export interface Neo4jGraphStoreSettings {
  /** Bolt URI, e.g. `bolt://127.0.0.1:7687` or `neo4j://host:7687`. */
  uri: string;
  /** User name; absent: no authentication (a server with auth disabled). */
  user?: string;
  /** Password of `user`. */
  password?: string;
  /** Database name; Graphiti's default `neo4j`. */
  database?: string;
  /** How long to wait for a connection before the server counts as unreachable; default 5 s. */
  connectionTimeoutMs?: number;
}

/** A GraphStore on Neo4j, which also reports the server it talks to. */
export interface Neo4jGraphStore extends GraphStore {
  /** `Neo4j <version> <edition>` once opened, e.g. `Neo4j 5.26.30 community`; null before. */
  readonly serverVersion: string | null;
}

/** What to do when no server answers. */
const NEO4J_START_HINT =
  'start Neo4j 5.26+ and set NEO4J_URI (plus NEO4J_USER / NEO4J_PASSWORD), or for tests run vitest with ' +
  '--globalSetup backends/test-support/neo4j-global-setup.ts, which starts a throwaway server through Maven';

type Neo4jModule = typeof import('neo4j-driver');

/**
 * Creates a Neo4j store. `open()` connects, checks the server (5.18+ for `vector.similarity.cosine`) and
 * creates Graphiti's indexes when missing. Writes follow Graphiti's save paths and set only what changes
 * (neo4j-graph-writes.ts); reads and searches run Graphiti's own queries, so a graph graphiti-core wrote reads
 * the same here as there, ties included. Nothing of stalebench's is stored on Graphiti's nodes or edges: the
 * only other node is the cross-process mutex (label `StalebenchMutex`).
 *
 * @example
 * const store = createNeo4jGraphStore({ uri: 'bolt://127.0.0.1:7687', user: 'neo4j', password: 'secret' });
 * await store.open();
 */
export function createNeo4jGraphStore(settings: Neo4jGraphStoreSettings): Neo4jGraphStore {
  const database = settings.database ?? 'neo4j';
  let connection: { neo4j: Neo4jModule; driver: Driver } | null = null;
  let opening: Promise<void> | null = null;
  let serverVersion: string | null = null;

  const connected = () => {
    if (!connection) throw new EvalError('store-not-open', 'neo4j graph store: call open() before using it');
    return connection;
  };
  const unavailable = (error: unknown): never => {
    const code = (error as { code?: unknown }).code;
    if (code === 'Neo.ClientError.Security.Unauthorized') {
      throw new BackendUnavailableError(
        'neo4j',
        settings.uri,
        'the server refused the credentials: check NEO4J_USER / NEO4J_PASSWORD',
        { cause: error },
      );
    }
    if (code === 'ServiceUnavailable' || code === 'SessionExpired')
      throw new BackendUnavailableError('neo4j', settings.uri, NEO4J_START_HINT, { cause: error });
    throw error;
  };
  const read = async (query: string, parameters: Record<string, unknown>) => {
    const { neo4j, driver } = connected();
    return (await driver.executeQuery(query, parameters, { database, routing: neo4j.routing.READ }).catch(unavailable))
      .records;
  };
  const write = <T>(
    work: (run: (query: string, parameters?: Record<string, unknown>) => Promise<Neo4jRecord[]>) => Promise<T>,
  ) => {
    const session = connected().driver.session({ database });
    return session
      .executeWrite((tx) => work(async (query, parameters = {}) => (await tx.run(query, parameters)).records))
      .catch(unavailable)
      .finally(() => session.close());
  };
  const writes = createNeo4jWrites({ neo4j: () => connected().neo4j, transaction: write });
  const reads = createNeo4jReads(read, {
    int: (value) => connected().neo4j.int(value),
    dateTime: (date) => toDateTime(connected().neo4j, date),
  });
  const searchFilter = (filter: Parameters<GraphStore['searchEdgesFulltext']>[0]['filter']) =>
    compileCypherFilter(filter, { variable: 'e', toParameter: (date) => toDateTime(connected().neo4j, date) });

  const connect = async () => {
    let neo4j: Neo4jModule;
    try {
      neo4j = (await import('neo4j-driver')).default;
    } catch (error) {
      throw new EvalError('missing-dependency', 'the neo4j graph store needs neo4j-driver: pnpm add neo4j-driver', {
        cause: error,
      });
    }
    let driver: Driver;
    try {
      const auth = settings.user === undefined ? undefined : neo4j.auth.basic(settings.user, settings.password ?? '');
      driver = neo4j.driver(settings.uri, auth, {
        connectionTimeout: settings.connectionTimeoutMs ?? 5_000,
        connectionAcquisitionTimeout: 10_000,
      });
    } catch (error) {
      throw new BackendUnavailableError(
        'neo4j',
        settings.uri,
        `not a Neo4j URI (bolt://, neo4j://): ${String(error)}`,
        { cause: error },
      );
    }
    try {
      await driver.verifyConnectivity({ database }).catch(unavailable);
      connection = { neo4j, driver };
      const [component] = await read(
        'CALL dbms.components() YIELD versions, edition RETURN versions[0] AS version, edition',
        {},
      );
      const version = String(component?.get('version') ?? '0');
      serverVersion = `Neo4j ${version} ${String(component?.get('edition') ?? '')}`.trim();
      const [major = 0, minor = 0] = version.split('.').map(Number);
      if (major < 5 || (major === 5 && minor < 18))
        throw new UnsupportedFeatureError(
          'neo4j',
          `server ${version}`,
          'vector.similarity.cosine needs Neo4j 5.18+ (Graphiti asks for 5.26+)',
        );
      const existing = new Set((await read('SHOW INDEXES YIELD name', {})).map((record) => String(record.get('name'))));
      // Two processes opening a fresh database race here: `IF NOT EXISTS` does not stop the loser's schema
      // transaction from failing with "an equivalent index already exists" (measured on 5.26.30), which is success.
      const create = (statement: string) =>
        driver.executeQuery(statement, {}, { database }).catch((error: unknown) => {
          if (
            !/^Neo\.ClientError\.Schema\.(EquivalentSchemaRule|Index|Constraint|IndexWithName|ConstraintWithName)AlreadyExists$/.test(
              String((error as { code?: unknown }).code),
            )
          )
            return unavailable(error);
        });
      for (const { name, statement } of cypher.SCHEMA_STATEMENTS) {
        if (!existing.has(name)) await create(statement);
      }
      await create(housekeeping.MUTEX_CONSTRAINT);
      await driver.executeQuery('CALL db.awaitIndexes(300)', {}, { database });
    } catch (error) {
      connection = null;
      await driver.close();
      throw error;
    }
  };

  return {
    id: 'neo4j',
    statisticsScope: 'index',
    get serverVersion() {
      return serverVersion;
    },
    async open() {
      opening ??= connect().catch((error: unknown) => {
        opening = null;
        throw error;
      });
      await opening;
    },
    ...writes,
    ...reads,
    async searchEdgesFulltext(search) {
      cypher.validateGroupIds(search.groupIds);
      if (search.limit <= 0 || search.query.trim() === '') return [];
      const query = cypher.graphitiFulltextQuery(search.query, search.groupIds);
      if (query === null) return [];
      const filter = searchFilter(search.filter);
      const parameters = {
        ...filter.parameters,
        query,
        group_ids: [...search.groupIds],
        limit: connected().neo4j.int(Math.floor(search.limit)),
      };
      return (await read(cypher.fulltextSearchCypher(filter.where), parameters)).map(scoredEdgeFromRecord);
    },
    async searchEdgesBySimilarity(search) {
      cypher.validateGroupIds(search.groupIds);
      if (search.limit <= 0 || search.vector.every((value) => value === 0)) return [];
      const filter = searchFilter(search.filter);
      const parameters = {
        ...filter.parameters,
        search_vector: [...search.vector],
        min_score: search.minScore,
        group_ids: [...search.groupIds],
        limit: connected().neo4j.int(Math.floor(search.limit)),
      };
      const records = await read(cypher.similaritySearchCypher(filter.where), parameters).catch((error: unknown) => {
        if (!String((error as Error).message).includes('same number of dimensions')) throw error;
        throw new Error(
          `vector length ${search.vector.length} does not match the stored embedding length (Neo4j: ${(error as Error).message})`,
          { cause: error },
        );
      });
      return records.map(scoredEdgeFromRecord) satisfies ScoredEdge[];
    },
    async deleteGroup(groupId) {
      cypher.validateGroupIds([groupId]);
      await write(async (run) => {
        for (const statement of cypher.DELETE_GROUP) await run(statement, { group_id: groupId });
      });
    },
    async listGroups(prefix) {
      const records = await read(housekeeping.LIST_GROUPS, { prefix });
      return [...new Set(records.map((record) => String(record.get('group_id'))))].sort();
    },
    async deleteGroupsByPrefix(prefix) {
      cypher.validateGroupIds([prefix]);
      return write(async (run) => {
        const [edges] = await run(housekeeping.DELETE_EDGES_BY_PREFIX, { prefix });
        const [nodes] = await run(housekeeping.DELETE_NODES_BY_PREFIX, { prefix });
        return { nodes: Number(nodes?.get('removed') ?? 0), edges: Number(edges?.get('removed') ?? 0) };
      });
    },
    async exclusive(work) {
      // Why a mutex: the fulltext index's BM25 statistics (N, document frequencies, average lengths) span every
      // group, so another run's live data changes this run's ranks. Measured with 3 concurrent runs of one spec
      // (sim, graphiti + zep-ce, per-process group ids but no mutex): graphiti natural revoked ranks 1.33 / 1.50 /
      // 1.67 and unsafe 5/18, 3/18, 5/18, all exit 0; with every seed → read → wipe inside this section, the three
      // summaries are identical and equal the embedded engine's (neo4j-isolation.test.ts).
      // An explicit transaction holds the mutex node's write lock for as long as `work` runs; other processes'
      // MERGE waits in the server. Nothing is kept: the transaction is rolled back (or dies with this client).
      const session = connected().driver.session({ database });
      try {
        // The metadata lets an operator see the holder: SHOW TRANSACTIONS YIELD transactionId, metaData.
        const transaction = session.beginTransaction({
          metadata: { stalebench: housekeeping.STATISTICS_MUTEX, pid: process.pid },
        });
        try {
          await transaction
            .run(housekeeping.TAKE_MUTEX, { name: housekeeping.STATISTICS_MUTEX, holder: `${process.pid}` })
            .catch(unavailable);
          const result = await work();
          // A transaction the server ended meanwhile (db.transaction.timeout, an admin) released the mutex under
          // `work`: its reads may have seen another run's data, so the section fails instead of passing silently.
          await transaction.run('RETURN 1').catch((error: unknown) => {
            throw new EvalError(
              'neo4j-mutex-lost',
              `neo4j: the mutex transaction ended while its section ran (${String((error as Error).message)}); another run may have changed this section's ranks`,
              { cause: error },
            );
          });
          return result;
        } finally {
          await transaction.rollback().catch(() => undefined);
        }
      } finally {
        await session.close();
      }
    },
    async close() {
      const current = connection;
      connection = null;
      opening = null;
      await current?.driver.close();
    },
  };
}
