// The registries of backends/: systems, engines and model roles record their settings, and their lines match the factories.
import { describe, expect, it } from 'vitest';
import { InvalidInputError, UnknownComponentError } from '#core/errors.js';
import { recordOf } from '#core/registry.js';
import { DEFAULT_RETRY_POLICY } from '#core/retry-policy.js';
import {
  connectEngines,
  defaultEngines,
  engineChoice,
  engineRecords,
  ENGINE_IDS,
  GRAPH_ENGINES,
  usesServerEngine,
  VECTOR_ENGINES,
} from './engines.js';
import { loadBackend, SYSTEMS, verifySystems } from './index.js';
import type { MemoryBackend } from './memory-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createFromSpec, embedderSpecPart, EMBEDDERS, EXTRACTION_MODELS, extractionSpecPart } from './model-roles.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const settings = () => ({
  embedder: createLexicalEmbedder(),
  runId: 'r',
  workDir: '/tmp/unused',
  extraction: createSimExtractionModel(),
});

describe('system registry', () => {
  it('records each system with its settings, not prose', () => {
    expect(SYSTEMS.ids.map((id) => SYSTEMS.record(id))).toEqual([
      { kind: 'system', id: 'graphiti', args: {} },
      { kind: 'system', id: 'zep-ce', args: { settleMs: 45_000 } },
      { kind: 'system', id: 'mem0', args: { variant: 'default' } },
      { kind: 'system', id: 'mem0-exp', args: { variant: 'expired-shown' } },
      { kind: 'system', id: 'langmem', args: { queryLimit: 5 } },
      { kind: 'system', id: 'cognee', args: { topK: 15, maxChunkTokens: 8191 } },
      { kind: 'system', id: 'inspeximus', args: { variant: 'unkeyed', library: 'inspeximus==3.23.1' } },
      { kind: 'system', id: 'inspeximus-keyed', args: { variant: 'keyed', library: 'inspeximus==3.23.1' } },
      { kind: 'system', id: 'inspeximus-hist', args: { variant: 'keyed-history', library: 'inspeximus==3.23.1' } },
      { kind: 'system', id: 'mem0-py', args: { variant: 'default', library: 'mem0ai==2.0.20' } },
      { kind: 'system', id: 'mem0-py-exp', args: { variant: 'expired-shown', library: 'mem0ai==2.0.20' } },
      { kind: 'system', id: 'graphiti-py', args: { library: 'graphiti-core==0.31.2' } },
      { kind: 'system', id: 'langmem-py', args: { library: 'langmem==0.0.30' } },
      { kind: 'system', id: 'cognee-py', args: { library: 'cognee==1.6.5' } },
    ]);
  });

  it("runs every system with its line's defaults exactly as its factory's own defaults (same description)", async () => {
    // Keyed by string, not by the registry's ids: a new system type-checks, and this pin then asks for its line.
    const direct: Readonly<Record<string, () => Promise<MemoryBackend>>> = {
      graphiti: async () => (await import('./graphiti-backend.js')).createGraphitiBackend(settings()),
      'zep-ce': async () => (await import('./zep-ce-backend.js')).createZepCeBackend(settings()),
      mem0: async () => (await import('./mem0-backend.js')).createMem0Backend({ ...settings(), variant: 'default' }),
      'mem0-exp': async () =>
        (await import('./mem0-backend.js')).createMem0Backend({ ...settings(), variant: 'expired-shown' }),
      langmem: async () => (await import('./langmem-backend.js')).createLangmemBackend(settings()),
      cognee: async () => (await import('./cognee-backend.js')).createCogneeBackend(settings()),
      inspeximus: async () =>
        (await import('./inspeximus-backend.js')).createInspeximusBackend({ ...settings(), variant: 'unkeyed' }),
      'inspeximus-keyed': async () =>
        (await import('./inspeximus-backend.js')).createInspeximusBackend({ ...settings(), variant: 'keyed' }),
      'inspeximus-hist': async () =>
        (await import('./inspeximus-backend.js')).createInspeximusBackend({ ...settings(), variant: 'keyed-history' }),
      'mem0-py': async () =>
        (await import('./mem0-py-backend.js')).createMem0PyBackend({ ...settings(), variant: 'default' }),
      'mem0-py-exp': async () =>
        (await import('./mem0-py-backend.js')).createMem0PyBackend({ ...settings(), variant: 'expired-shown' }),
      'graphiti-py': async () => (await import('./graphiti-py-backend.js')).createGraphitiPyBackend(settings()),
      'langmem-py': async () => (await import('./langmem-py-backend.js')).createLangmemPyBackend(settings()),
      'cognee-py': async () => (await import('./cognee-py-backend.js')).createCogneePyBackend(settings()),
    };
    expect(Object.keys(direct)).toEqual([...SYSTEMS.ids]);
    for (const id of SYSTEMS.ids) {
      const registered = await loadBackend(id, settings());
      expect(registered.description.summary, id).toBe((await direct[id]!()).description.summary);
      expect(recordOf(registered), id).toEqual(SYSTEMS.record(id));
    }
  });

  it('passes recorded arguments to the backend and refuses unknown ones', async () => {
    const cognee = await loadBackend('cognee', settings(), { topK: 3 });
    expect(cognee.description.summary).toContain('top_k 3');
    expect(recordOf(cognee)).toEqual({ kind: 'system', id: 'cognee', args: { topK: 3, maxChunkTokens: 8191 } });
    await expect(loadBackend('cognee', settings(), { topk: 3 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(loadBackend('mem0', settings(), { variant: 'expired-shown' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    // The library pin is a recorded setting, not a choice: another version is refused before anything starts.
    await expect(loadBackend('inspeximus', settings(), { library: 'inspeximus==3.22.0' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(loadBackend('inspeximus-hist', settings(), { variant: 'keyed' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });
});

describe('system prerequisites', () => {
  it('checks only systems that declare one: the in-process systems need nothing on the machine', async () => {
    await expect(verifySystems(['graphiti', 'mem0', 'cognee'])).resolves.toBeUndefined();
    expect(SYSTEMS.ids.filter((id) => 'prerequisite' in SYSTEMS.get(id))).toEqual([
      'inspeximus',
      'inspeximus-keyed',
      'inspeximus-hist',
      'mem0-py',
      'mem0-py-exp',
      'graphiti-py',
      'langmem-py',
      'cognee-py',
    ]);
  });

  it('graphiti-py without NEO4J_URI: a MissingPrerequisiteError naming the three variables, before any Python starts', async () => {
    await expect(verifySystems(['graphiti', 'graphiti-py'], {})).rejects.toMatchObject({
      code: 'missing-prerequisite',
      message: expect.stringMatching(
        /^graphiti-py needs a Neo4j server \(NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD\): NEO4J_URI is not set: start one with pnpm services start neo4j/,
      ),
    });
  });

  it('graphiti-py with a NEO4J_URI nothing answers: the server is named before anything is written', async () => {
    const neo4j = { uri: 'bolt://127.0.0.1:9', user: 'neo4j', password: 'unused' };
    await expect(verifySystems(['graphiti-py'], { neo4j })).rejects.toMatchObject({
      code: 'backend-unavailable',
      message: expect.stringContaining('bolt://127.0.0.1:9'),
    });
  });
});

describe('engine registries', () => {
  it('derive the command line, the spec part, the credentials and the manifest record from one line per engine', () => {
    expect([GRAPH_ENGINES.ids, VECTOR_ENGINES.ids, ENGINE_IDS]).toEqual([
      ['embedded', 'neo4j'],
      ['embedded', 'qdrant'],
      ['embedded', 'neo4j', 'qdrant'],
    ]);
    const env = { NEO4J_URI: 'bolt://db:7687', QDRANT_URL: 'http://vectors:6333' };
    const choice = engineChoice({ engines: ['neo4j', 'qdrant'] }, env);
    expect(choice).toEqual({
      graph: { id: 'neo4j', uri: 'bolt://db:7687', user: 'neo4j' },
      vector: { id: 'qdrant', url: 'http://vectors:6333' },
    });
    expect(connectEngines(choice, { neo4jPassword: 'pw', qdrantApiKey: 'k' })).toEqual({
      graph: { id: 'neo4j', uri: 'bolt://db:7687', user: 'neo4j', password: 'pw' },
      vector: { id: 'qdrant', url: 'http://vectors:6333', apiKey: 'k' },
    });
    expect(engineRecords(choice)).toEqual([
      { kind: 'graph-engine', id: 'neo4j', args: { uri: 'bolt://db:7687', user: 'neo4j' } },
      { kind: 'vector-engine', id: 'qdrant', args: { url: 'http://vectors:6333' } },
    ]);
    expect([usesServerEngine(choice), defaultEngines(choice)]).toEqual([true, false]);
    const none = engineChoice({ engines: [] }, {});
    expect(none).toEqual({ graph: { id: 'embedded' }, vector: { id: 'embedded' } });
    expect([usesServerEngine(none), defaultEngines(none)]).toEqual([false, true]);
    expect(engineChoice({ engines: ['qdrant'], graph: 'neo4j' }, {}).graph.id).toBe('neo4j');
    expect(() => engineChoice({ engines: ['mongo'] }, {})).toThrow(UnknownComponentError);
  });
});

describe('model-role registries', () => {
  it('turn command-line values into spec parts, records with defaults, and preflight endpoints', async () => {
    expect(embedderSpecPart('lexical', 'ignored', {})).toEqual({ id: 'lexical' });
    expect(embedderSpecPart('openai', undefined, { STALEBENCH_EMBEDDING_MODEL: 'nomic-embed-text' })).toEqual({
      id: 'openai',
      model: 'nomic-embed-text',
      baseURL: null,
    });
    expect(embedderSpecPart('word2vec', undefined, {})).toEqual({ id: 'word2vec' });
    expect(extractionSpecPart('sim', {})).toEqual({ id: 'sim' });
    expect(extractionSpecPart('gpt-5-nano', {})).toEqual({ id: 'openai', model: 'gpt-5-nano' });
    expect(EMBEDDERS.record('openai', { model: 'm', baseURL: null })).toEqual({
      kind: 'embedder',
      id: 'openai',
      args: { model: 'm', baseURL: null, retry: DEFAULT_RETRY_POLICY },
    });
    expect(EXTRACTION_MODELS.record('openai', { model: 'm' })).toEqual({
      kind: 'extraction-model',
      id: 'openai',
      args: { model: 'm', jsonMode: true, retry: DEFAULT_RETRY_POLICY },
    });
    expect(EMBEDDERS.get('openai').endpoint({ model: 'm', baseURL: null }, { baseURL: 'http://proxy/v1' })).toEqual({
      baseURL: 'http://proxy/v1',
      model: 'm',
    });
    expect(
      EMBEDDERS.get('openai').endpoint({ model: 'm', baseURL: 'http://ollama/v1' }, { baseURL: 'http://proxy/v1' }),
    ).toEqual({ baseURL: 'http://ollama/v1', model: 'm' });
    expect(EXTRACTION_MODELS.get('sim').endpoint({}, { baseURL: 'http://proxy/v1' })).toBeNull();
    const embedder = await createFromSpec(
      EMBEDDERS,
      { id: 'openai', model: 'm', baseURL: null },
      { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'secret' },
    );
    expect(embedder.id).toBe('openai:m');
    expect(JSON.stringify(recordOf(embedder))).not.toContain('secret');
  });
});
