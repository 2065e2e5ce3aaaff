// Test-only: runs graphiti-core itself (PyPI, in the pinned test venv) against the test Neo4j through graphiti_interop.py.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Embedder } from '../embedder.js';
import { ensurePythonVenv, pythonPaths } from '../python/python-venv.js';
import { GRAPHITI_CORE_VERSION } from '../graphiti-version.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'backends', 'python', 'graphiti_interop.py');

/** An edge as graphiti-core's `EntityEdge` loaded it (datetimes as Python ISO strings, attribute names only). */
export interface InteropEdge {
  uuid: string;
  group_id: string;
  name: string;
  fact: string;
  source_node_uuid: string;
  target_node_uuid: string;
  episodes: string[];
  created_at: string;
  valid_at: string | null;
  invalid_at: string | null;
  expired_at: string | null;
  reference_time: string | null;
  attributes: string[];
}

/** What `read` answers: graphiti-core's four get_by_group_ids. */
export interface InteropRead {
  edges: InteropEdge[];
  nodes: { uuid: string; name: string; labels: string[]; attributes: string[]; created_at: string }[];
  episodes: {
    uuid: string;
    name: string;
    source: string;
    source_description: string;
    content: string;
    entity_edges: string[];
    created_at: string;
    valid_at: string;
  }[];
  mentions: {
    uuid: string;
    group_id: string;
    source_node_uuid: string;
    target_node_uuid: string;
    created_at: string;
  }[];
}

/** What `search` answers: Graphiti.search and the two search utilities, best first. */
export interface InteropSearch {
  edges: InteropEdge[];
  fulltext: string[];
  similarity: string[];
}

/** A runner of request steps, or why the interop tests cannot run. */
export type GraphitiInterop =
  | { run: (request: InteropRequest) => Promise<unknown[]>; version: string }
  | { skip: string };

/** One request to graphiti_interop.py (its docstring lists the steps). */
export interface InteropRequest {
  neo4j: { uri: string; user?: string; password?: string };
  embeddings: Record<string, number[]>;
  steps: Record<string, unknown>[];
}

const importsGraphiti = (python: string): boolean =>
  spawnSync(python, ['-c', 'import graphiti_core, httpx'], { encoding: 'utf8', timeout: 60_000 }).status === 0;

async function pypiReachable(): Promise<string | null> {
  const index = process.env.PIP_INDEX_URL ?? 'https://pypi.org/simple';
  try {
    const response = await fetch(`${index.replace(/\/$/, '')}/graphiti-core/`, { signal: AbortSignal.timeout(15_000) });
    return response.ok ? null : `${index} answered ${response.status}`;
  } catch (error) {
    return `${index} is unreachable (${(error as Error).message})`;
  }
}

/**
 * Makes sure the test venv imports graphiti-core (installing backends/python/requirements.txt when it does not) and
 * returns a runner. Skips only when PyPI cannot be reached; any other install failure throws, so the test fails.
 *
 * @example
 * const interop = await setupGraphitiInterop();
 * if ('run' in interop) await interop.run({ neo4j: { uri }, embeddings: {}, steps: [{ op: 'read', group: 'g' }] });
 */
export async function setupGraphitiInterop(log: (line: string) => void = console.log): Promise<GraphitiInterop> {
  const { python } = pythonPaths(ROOT);
  if (!importsGraphiti(python)) {
    const problem = ensurePythonVenv(ROOT, (line) => log(`[graphiti interop venv] ${line}`));
    if (problem !== null || !importsGraphiti(python)) {
      const offline = await pypiReachable();
      if (offline !== null) return { skip: `graphiti-core ${GRAPHITI_CORE_VERSION} cannot be installed: ${offline}` };
      throw new Error(
        `graphiti-core ${GRAPHITI_CORE_VERSION} did not install into ${python} although PyPI answers: ${problem ?? 'the import still fails'}`,
      );
    }
  }
  const run = async (request: InteropRequest): Promise<unknown[]> => {
    const result = spawnSync(python, [SCRIPT], {
      input: JSON.stringify(request),
      encoding: 'utf8',
      timeout: 180_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0)
      throw new Error(
        `graphiti_interop.py exited ${result.status ?? result.signal}: ${result.stderr.trim().split('\n').slice(-8).join('\n')}`,
      );
    const answer = JSON.parse(result.stdout) as { results: unknown[]; versions: Record<string, string> };
    // The port models one release: a venv holding another would test the wrong library.
    if (answer.versions['graphiti-core'] !== GRAPHITI_CORE_VERSION)
      throw new Error(
        `the venv holds graphiti-core ${answer.versions['graphiti-core']}, the port models ${GRAPHITI_CORE_VERSION}`,
      );
    return answer.results;
  };
  return { run, version: GRAPHITI_CORE_VERSION };
}

/** The embeddings graphiti-core will ask for, computed by stalebench's embedder (Graphiti replaces newlines first). */
export async function embeddingTable(embedder: Embedder, texts: readonly string[]): Promise<Record<string, number[]>> {
  const unique = [...new Set(texts.map((text) => text.replace(/\n/g, ' ')))];
  const vectors = await embedder.embed(unique);
  return Object.fromEntries(unique.map((text, index) => [text, vectors[index] ?? []]));
}

type Properties = Record<string, unknown>;

/** Every node and relationship of a group as stored (labels or type, and the raw property map), by uuid. */
export async function rawGroup(
  server: { uri: string; user?: string; password?: string },
  group: string,
): Promise<{
  nodes: Map<string, { labels: string[]; properties: Properties }>;
  relationships: Map<string, { type: string; properties: Properties }>;
}> {
  const neo4j = (await import('neo4j-driver')).default;
  const driver = neo4j.driver(
    server.uri,
    server.user === undefined ? undefined : neo4j.auth.basic(server.user, server.password ?? ''),
  );
  try {
    const nodes = await driver.executeQuery(
      'MATCH (n) WHERE n.group_id = $group RETURN labels(n) AS labels, properties(n) AS properties',
      { group },
    );
    const relationships = await driver.executeQuery(
      'MATCH ()-[r]->() WHERE r.group_id = $group RETURN type(r) AS type, properties(r) AS properties',
      { group },
    );
    const byUuid = <T>(rows: T[], uuid: (row: T) => unknown) => new Map(rows.map((row) => [String(uuid(row)), row]));
    return {
      nodes: byUuid(
        nodes.records.map((r) => ({
          labels: r.get('labels') as string[],
          properties: r.get('properties') as Properties,
        })),
        (row) => row.properties.uuid,
      ),
      relationships: byUuid(
        relationships.records.map((r) => ({
          type: r.get('type') as string,
          properties: r.get('properties') as Properties,
        })),
        (row) => row.properties.uuid,
      ),
    };
  } finally {
    await driver.close();
  }
}

/** Property names starting with `stalebench` on any node or relationship outside stalebench's own mutex label. */
export async function stalebenchProperties(server: {
  uri: string;
  user?: string;
  password?: string;
}): Promise<string[]> {
  const neo4j = (await import('neo4j-driver')).default;
  const driver = neo4j.driver(
    server.uri,
    server.user === undefined ? undefined : neo4j.auth.basic(server.user, server.password ?? ''),
  );
  try {
    const { records } = await driver.executeQuery(`
      MATCH (n) WHERE NOT n:StalebenchMutex UNWIND keys(n) AS key WITH key WHERE key STARTS WITH 'stalebench' RETURN DISTINCT key
      UNION MATCH ()-[r]->() UNWIND keys(r) AS key WITH key WHERE key STARTS WITH 'stalebench' RETURN DISTINCT key`);
    return records.map((record) => String(record.get('key')));
  } finally {
    await driver.close();
  }
}
