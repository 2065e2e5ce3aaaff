// graphiti-py: graphiti-core itself (PyPI, the paper's library) on a real Neo4j, in a Python process.
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { BackendUnavailableError, EvalError, MissingPrerequisiteError, UnsupportedFeatureError } from '#core/errors.js';
import { groupId } from './graphiti-ids.js';
import { GRAPHITI_CORE_VERSION } from './graphiti-version.js';
import { directoryName } from './inspeximus-records.js';
import type {
  BackendDescription,
  BackendSettings,
  InsertReport,
  MemoryBackend,
  MemoryRecord,
  MemoryWrites,
  Neo4jServer,
  RecordedWarning,
} from './memory-backend.js';
import type { MemoryFilter } from './memory-filter.js';
import { createNeo4jGraphStore } from './neo4j-graph-store.js';
import { refuseProvenance } from './provenance.js';
import { startEmbeddingEndpoint, type EmbeddingEndpoint } from './python/embedding-endpoint.js';
import { libraryLlm } from './python/library-llm.js';
import {
  createPythonMemoryProcess,
  pythonPackageProblem,
  type PythonMemoryProcess,
} from './python/python-memory-process.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';

/** The package graphiti-py drives: the pin of backends/python/requirements.txt (the main venv). */
export const GRAPHITI_CORE_PIN = { name: 'graphiti-core', version: GRAPHITI_CORE_VERSION } as const;

/** Settings of graphiti-py. */
export type GraphitiPySettings = BackendSettings & {
  /** Repository root holding the venv and the driver; defaults to this checkout. */
  root?: string;
};

/** An edge as graphiti-core's `EntityEdge` holds it (datetimes as Python ISO strings). */
interface PyEdge {
  uuid: string;
  group_id: string;
  name: string;
  fact: string;
  source_node_uuid: string;
  target_node_uuid: string;
  created_at: string | null;
  valid_at: string | null;
  invalid_at: string | null;
  expired_at: string | null;
}

const ADAPTER = 'graphiti_memory';
const PROJECT_ROOT = join(import.meta.dirname, '..');
const DAY_MS = 86_400_000;
const POLICY_NODE_NAMES = ['Policy subject', 'Policy rule'] as const;
/** The paper's filtered read, the one filter graphiti-py passes to graphiti-core's SearchFilters. */
const NOT_EXPIRED: MemoryFilter = { expired_at: [[{ operator: 'IS NULL' }]] };
const NEO4J_VARIABLES = 'a Neo4j server (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)';
const NO_METADATA = `graphiti-core ${GRAPHITI_CORE_VERSION}'s direct EntityEdge writes keep no caller metadata here`;
const NO_PROVENANCE = 'graphiti-py journals carry no provenance (the graphiti port models it)';
const NEEDS_LLM = "graphiti-core's natural mode is add_episode, which sends its own prompts to a language model";

let checked: Promise<MissingPrerequisiteError | null> | undefined;

/**
 * Null when graphiti-py can run: NEO4J_URI names a Neo4j server that answers, and the main venv holds the pinned
 * graphiti-core. Otherwise the error naming NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, the server, or the install
 * command.
 */
export async function graphitiPyProblem(
  neo4j: Neo4jServer | undefined,
  root: string = PROJECT_ROOT,
): Promise<MissingPrerequisiteError | BackendUnavailableError | null> {
  if (!neo4j)
    return new MissingPrerequisiteError(
      'graphiti-py',
      NEO4J_VARIABLES,
      'NEO4J_URI is not set: start one with pnpm services start neo4j and export the NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD it prints',
    );
  const store = createNeo4jGraphStore(neo4j);
  try {
    await store.open();
  } catch (error) {
    if (error instanceof BackendUnavailableError) return error;
    throw error;
  } finally {
    await store.close();
  }
  const settings = { system: 'graphiti-py', adapter: ADAPTER, pin: GRAPHITI_CORE_PIN, root };
  if (root !== PROJECT_ROOT) return pythonPackageProblem(settings);
  checked ??= pythonPackageProblem(settings);
  return checked;
}

/** A Python ISO datetime as the ports write it (`toISOString`), or null. */
const isoOf = (value: string | null): string | null => (value === null ? null : new Date(value).toISOString());

/** An edge as a record, with the fields the graphiti port's records carry (backends/graphiti-backend.ts). */
function toRecord(edge: PyEdge): MemoryRecord {
  return {
    id: edge.uuid,
    text: edge.fact,
    fields: {
      fact: edge.fact,
      name: edge.name,
      group_id: edge.group_id,
      source_node_uuid: edge.source_node_uuid,
      target_node_uuid: edge.target_node_uuid,
      created_at: isoOf(edge.created_at),
      valid_at: isoOf(edge.valid_at),
      invalid_at: isoOf(edge.invalid_at),
      expired_at: isoOf(edge.expired_at),
    },
  };
}

/** The natural steps of stale-retrieval.md §3.1: one add_episode per episode, source type text. */
function episodeSteps(writes: Extract<MemoryWrites, { mode: 'natural' }>) {
  return writes.episodes.map((episode) => ({
    episode: {
      name: episode.name,
      content: episode.text,
      source: 'text',
      source_description: episode.sourceDescription,
      reference_time: episode.referenceTime.toISOString(),
    },
  }));
}

/** The direct step of stale-retrieval.md §3.1: two policy nodes, then one edge per fact (v1 pre-expired). */
function directStep(now: Date, writes: Extract<MemoryWrites, { mode: 'direct' }>) {
  const past = new Date(now.getTime() - 90 * DAY_MS).toISOString();
  const yesterday = new Date(now.getTime() - DAY_MS).toISOString();
  const at = now.toISOString();
  const edge = (fact: string, revoked: boolean) => ({
    name: writes.relation ?? 'POLICY',
    fact,
    created_at: revoked ? past : at,
    valid_at: revoked ? past : at,
    invalid_at: revoked ? yesterday : null,
    expired_at: revoked ? yesterday : null,
  });
  return {
    direct: {
      nodes: POLICY_NODE_NAMES.map((name) => ({ name, created_at: past })),
      edges: [...writes.revoked.map((fact) => edge(fact, true)), ...writes.current.map((fact) => edge(fact, false))],
    },
  };
}

/**
 * Creates `graphiti-py`: graphiti-core (the main venv's pin) in one Python process per backend, through its own
 * `Graphiti(uri, user, password)` on the Neo4j server of NEO4J_URI (whatever `--engine` says; the credentials reach
 * the process through its environment only), `build_indices_and_constraints()` on open. A namespace is a group id
 * (`<run root>__<namespace>`). Direct writes follow stale-retrieval.md §3.1 with graphiti-core's `EntityNode.save` /
 * `EntityEdge.save` (no LLM: its LLM client and cross-encoder refuse every call). Reads are `Graphiti.search(query,
 * group_ids=[group], num_results=limit)`, its default recipe (EDGE_HYBRID_SEARCH_RRF); the store filter is
 * `SearchFilters(expired_at=[[is_null]])`. Every embedding comes from the run's embedder through a loopback endpoint,
 * so the library ranks with the port's vectors. Natural mode is graphiti-core's `add_episode` per episode (source type
 * text) with its OpenAIGenericClient on the endpoint of `--extraction-model <alias>`; with the offline simulator it is
 * `n/a`, with the reason.
 *
 * @example
 * const backend = createGraphitiPyBackend({ embedder, extraction, runId: 'r1', workDir: '/tmp/r1', neo4j });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 */
export function createGraphitiPyBackend(settings: GraphitiPySettings): MemoryBackend {
  const { embedder, runId, extraction } = settings;
  const neo4j = settings.neo4j;
  const llm = libraryLlm(extraction, NEEDS_LLM);
  // The cross-process mutex of the port's Neo4j store: BM25 statistics span every group on the server.
  const mutex = neo4j ? createNeo4jGraphStore(neo4j) : undefined;
  let endpoint: EmbeddingEndpoint | undefined;
  let python: PythonMemoryProcess | undefined;
  const groupOf = (namespace: string) => groupId(runId, namespace);
  const live = (): PythonMemoryProcess => {
    if (!python) throw new EvalError('backend-not-open', 'graphiti-py: call open() before using the backend');
    return python;
  };
  const unusedEngines: RecordedWarning[] =
    settings.engine?.vector.id === 'qdrant'
      ? [
          {
            type: 'unsupported',
            feature: 'storage engine',
            message: 'graphiti-py keeps its graph on Neo4j; qdrant is not used',
          },
        ]
      : [];

  const description: BackendDescription = {
    summary: `graphiti-core ${GRAPHITI_CORE_VERSION} (PyPI, the library itself) in a Python process on Neo4j (NEO4J_URI): its own driver and build_indices_and_constraints(); direct seeding of pre-revoked EntityEdges through EntityNode/EntityEdge.save (no LLM); natural = add_episode on ${llm.natural.supported ? extraction.id : 'no model (n/a)'}; default read Graphiti.search() = EDGE_HYBRID_SEARCH_RRF; embeddings from the run's embedder ${embedder.id} (the ports' vectors)`,
    modes: { direct: { supported: true }, natural: llm.natural },
    exposure: { rule: 'status', field: 'expired_at' },
    storeFilter: NOT_EXPIRED,
    statusFields: ['expired_at', 'invalid_at', 'valid_at'],
    // Neo4j's fulltext statistics span every group: units run one at a time, each alone in the store, as the paper's.
    independentNamespaces: false,
  };

  return {
    id: 'graphiti-py',
    description,
    async open() {
      if (python) return;
      if (!neo4j || !mutex) {
        const problem = await graphitiPyProblem(neo4j, settings.root);
        if (problem) throw problem;
        return;
      }
      await mutex.open();
      endpoint = await startEmbeddingEndpoint(embedder);
      const opening = createPythonMemoryProcess({
        system: 'graphiti-py',
        adapter: ADAPTER,
        pin: GRAPHITI_CORE_PIN,
        root: settings.root ?? PROJECT_ROOT,
        config: { embeddings_url: endpoint.url, dimensions: embedder.dimensions, ...llm.config },
        environment: {
          NEO4J_URI: neo4j.uri,
          NEO4J_USER: neo4j.user,
          NEO4J_PASSWORD: neo4j.password,
          ...llm.environment,
        },
        workDir: join(settings.workDir, directoryName(settings.runId), 'graphiti-py'),
      });
      await opening.open();
      python = opening;
    },
    async insert(request): Promise<InsertReport> {
      refuseProvenance('graphiti-py', request, NO_PROVENANCE);
      const { writes } = request;
      if (writes.mode === 'natural' && !llm.natural.supported)
        throw new UnsupportedFeatureError('graphiti-py', 'natural mode', llm.natural.reason);
      const steps = writes.mode === 'direct' ? [directStep(request.now, writes)] : episodeSteps(writes);
      const result = await live().request<{ ids: string[]; stored: number }>('insert', groupOf(request.namespace), {
        steps,
      });
      return {
        stored: result.stored,
        extractor: writes.mode === 'direct' ? 'none' : `graphiti-core add_episode on ${extraction.id}`,
        warnings: [...unusedEngines, ...unstoredMetadataWarnings(request, NO_METADATA), ...live().takeNotes()],
      };
    },
    async search(request) {
      refuseProvenance('graphiti-py', request, NO_PROVENANCE);
      refuseMetadataFilter('graphiti-py', request, NO_METADATA);
      if (request.filter !== undefined && !isDeepStrictEqual(request.filter, NOT_EXPIRED))
        throw new UnsupportedFeatureError(
          'graphiti-py',
          `filter ${JSON.stringify(request.filter)}`,
          "graphiti-py passes only the paper's filtered read (expired_at IS NULL) to graphiti-core's SearchFilters",
        );
      const found = await live().request<{ records: PyEdge[] }>('search', groupOf(request.namespace), {
        query: request.query,
        k: request.limit,
        options: { filtered: request.filter !== undefined },
      });
      return { records: found.records.map(toRecord), warnings: live().takeNotes() };
    },
    async listRecords(namespace) {
      const { records } = await live().request<{ records: PyEdge[] }>('list', groupOf(namespace));
      return records.map((edge) => ({ record: toRecord(edge), revoked: edge.expired_at !== null }));
    },
    async reset(namespace) {
      await live().reset(groupOf(namespace));
    },
    exclusive: async (work) => (mutex ? mutex.exclusive(work) : work()),
    async close() {
      const closing = python;
      python = undefined;
      try {
        await closing?.close();
      } finally {
        await endpoint?.close();
        endpoint = undefined;
        await mutex?.close();
      }
    },
  };
}
