// Target `graphiti@neo4j` (model): our Graphiti port on a real Neo4j server; edits are Cypher through a plain driver.
import { withoutPassword } from '#core/url-credentials.js';
import { GRAPHITI_CORE_LABEL, GRAPHITI_CORE_VERSION } from '../../../../backends/graphiti-version.js';
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import { createNeo4jGraphStore } from '../../../../backends/neo4j-graph-store.js';
import { graphNeo4jRawAccess, openPlainDriver, type Neo4jConnection } from './graph-neo4j-raw.js';
import {
  graphitiGroup,
  GRAPHITI_REVOCATION_FIELDS,
  startGraphitiSession,
  type WriteOrder,
} from './graphiti-session.js';
import type { IntegrityTarget, TargetDescription, Unavailable } from './integrity-target.js';
import { LEDGER_CONFIG, openCellLedger } from './ledger-read.js';
import { installedVersion } from './package-version.js';

/** Where the server is: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD (the variables the eval command reads). */
export function neo4jConnectionFromEnv(env: Readonly<Record<string, string | undefined>>): Neo4jConnection | null {
  if (!env.NEO4J_URI) return null;
  return {
    uri: env.NEO4J_URI,
    ...(env.NEO4J_USER ? { user: env.NEO4J_USER, password: env.NEO4J_PASSWORD ?? '' } : {}),
  };
}

/** Connects once and asks the server its version; the failure text when it does not answer. */
async function probe(connection: Neo4jConnection): Promise<{ version: string } | { error: string }> {
  const driver = await openPlainDriver(connection);
  try {
    await driver.verifyConnectivity();
    const result = await driver.executeQuery(
      'CALL dbms.components() YIELD versions, edition RETURN versions[0] AS version, edition',
    );
    const record = result.records[0];
    return { version: `${String(record?.get('version'))} ${String(record?.get('edition'))}` };
  } catch (error) {
    return { error: withoutPassword(`${connection.uri} did not answer: ${(error as Error).message}`) };
  } finally {
    await driver.close();
  }
}

/**
 * Creates `graphiti@neo4j`. Each cell is isolated by its own group ids on the shared server and deletes them when
 * done; the store is "stopped" by closing the backend and its driver, so the edit runs with no system code loaded.
 * With `ledger` (`graphiti+ledger@neo4j`) the application writes through the revocation ledger and its read refuses
 * what the ledger does not bind (pipeline/suites/integrity/targets/ledger-read.ts).
 *
 * @example const target = createGraphitiNeo4jTarget({ NEO4J_URI: 'bolt://127.0.0.1:7687' });
 */
export function createGraphitiNeo4jTarget(
  env: Readonly<Record<string, string | undefined>>,
  options: { ledger?: boolean } = {},
): IntegrityTarget {
  const connection = neo4jConnectionFromEnv(env);
  let probed: Promise<{ version: string } | { error: string }> | undefined;
  const server = () => (probed ??= connection ? probe(connection) : Promise.resolve({ error: 'NEO4J_URI is not set' }));
  return {
    id: options.ledger ? 'graphiti+ledger@neo4j' : 'graphiti@neo4j',
    async describe(): Promise<TargetDescription> {
      const answer = await server();
      const version = 'version' in answer ? answer.version : 'unreachable';
      return {
        label: `Graphiti (model): our ${GRAPHITI_CORE_LABEL} port on Neo4j ${version}${options.ledger ? ', revocation ledger' : ''}`,
        model: true,
        versions: {
          'graphiti-core (ported)': GRAPHITI_CORE_VERSION,
          Neo4j: version,
          'neo4j-driver': installedVersion('neo4j-driver'),
        },
        store: `Neo4j ${version} at ${connection ? withoutPassword(connection.uri) : '(NEO4J_URI unset)'}, Graphiti's schema and indexes`,
        config: {
          'integrity features': 'none (Graphiti and Neo4j offer none by default)',
          seeding: 'direct mode: one RELATES_TO edge per record, no LLM',
          'read path': 'search() default recipe (BM25 + cosine, RRF); revoked edges are returned by default',
          embedder: `${createLexicalEmbedder().id} (offline)`,
          ...(options.ledger ? LEDGER_CONFIG : {}),
        },
        detection: 'read',
        contexts: 2,
        revocationFields: GRAPHITI_REVOCATION_FIELDS,
        tooling: 'Cypher through a plain neo4j-driver session (no Graphiti or store code)',
      };
    },
    async unavailable(): Promise<Unavailable | null> {
      if (!connection)
        return {
          reason:
            'no Neo4j server: set NEO4J_URI (and NEO4J_USER / NEO4J_PASSWORD), e.g. as `pnpm services start neo4j` prints them',
          missingPrerequisite: true,
        };
      const answer = await server();
      return 'error' in answer ? { reason: answer.error, missingPrerequisite: true } : null;
    },
    async createStore({ dir, cellId, log }) {
      if (!connection) throw new Error('NEO4J_URI is not set');
      const order: WriteOrder = new Map(); // the cell's write order, shared by the session and the raw access
      const ledger = options.ledger ? openCellLedger(dir) : undefined;
      return {
        raw: graphNeo4jRawAccess(
          connection,
          { A: graphitiGroup(cellId, 'A'), B: graphitiGroup(cellId, 'B') },
          log,
          order,
        ),
        start: () => startGraphitiSession(createNeo4jGraphStore(connection), cellId, dir, order, ledger),
        async dispose() {
          const driver = await openPlainDriver(connection);
          try {
            await driver.executeQuery('MATCH (n) WHERE n.group_id IN $groups DETACH DELETE n', {
              groups: [graphitiGroup(cellId, 'A'), graphitiGroup(cellId, 'B')],
            });
          } finally {
            await driver.close();
          }
        },
      };
    },
  };
}
