import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startOpenAICompatibleServer } from '../pipeline/test-support/openai-compatible-server.js';
import type { ExtractionModel } from './extraction-model.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createMem0Backend, type Mem0Settings } from './mem0-backend.js';
import { createMem0ChatModel } from './mem0-extraction-llm.js';
import type { Episode } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const workDirs: string[] = [];
afterAll(() =>
  workDirs.forEach((dir) => {
    rmSync(dir, { recursive: true, force: true });
  }),
);
const mem0 = (overrides: Partial<Mem0Settings> = {}) => {
  const workDir = mkdtempSync(join(tmpdir(), 'stalebench-mem0-natural-'));
  workDirs.push(workDir);
  return createMem0Backend({
    embedder: createLexicalEmbedder(),
    extraction: createSimExtractionModel(),
    runId: 'natural',
    workDir,
    variant: 'default',
    ...overrides,
  });
};
const now = new Date();
const episodes: Episode[] = [
  {
    name: 'x_ep0',
    text: 'Standard ADMIN-MFA-05, issued in 2024, governs the Admin MFA Gateway. It states: MFA may be waived for admin access in a hurry.',
    referenceTime: now,
    sourceDescription: 'policy feed',
  },
  {
    name: 'x_ep1',
    text: 'Standard ADMIN-MFA-05 has been revised and now supersedes the 2024 issue. For the Admin MFA Gateway it states: Admin access always requires MFA.',
    referenceTime: now,
    sourceDescription: 'policy feed',
  },
];
const QUERY = 'MFA waiver for admin access';
/** The simulator under a non-simulated id, as an endpoint-backed extraction model would look. */
const endpointExtraction: ExtractionModel = {
  ...createSimExtractionModel(),
  id: 'openai:test-model',
  simulated: false,
};

describe('mem0 natural mode', () => {
  it("runs mem0's own inference path with the simulated extractor behind its langchain hook", async () => {
    const backend = mem0();
    await backend.open();
    const oss = await import('mem0ai/oss');
    const add = vi.spyOn(oss.Memory.prototype, 'add');
    const report = await backend.insert({ namespace: 'ns', now, writes: { mode: 'natural', episodes } });
    expect(add.mock.calls).toEqual(episodes.map((episode) => [episode.text, { userId: 'natural__ns' }]));
    add.mockRestore();
    expect(report).toMatchObject({ stored: 4, extractor: 'sim-extractor-v3' });
    expect(report.warnings.map((warning) => warning.feature)).toEqual([]);
    const { records } = await backend.search({ namespace: 'ns', query: QUERY, limit: 10 });
    const texts = records.map((record) => record.text);
    // Additive era: the revised policy is added and the old one stays live and unmarked.
    expect(texts).toEqual(
      expect.arrayContaining(['MFA may be waived for admin access in a hurry.', 'Admin access always requires MFA.']),
    );
    expect(
      records.every((record) => record.fields.expiration_date === null && record.fields.attributed_to === 'user'),
    ).toBe(true);
    expect(records.every((record) => typeof record.fields.updated_at === 'string')).toBe(true);
    await backend.close();
  });

  it('notes when a real extraction model answers without an llm endpoint', async () => {
    const backend = mem0({ extraction: endpointExtraction });
    await backend.open();
    const report = await backend.insert({ namespace: 'ns', now, writes: { mode: 'natural', episodes } });
    expect(report.extractor).toBe('openai:test-model');
    expect(report.warnings.map((warning) => warning.feature).sort()).toEqual(['mem0 extraction LLM']);
    await backend.close();
  });

  it("uses mem0's openai provider on the llm endpoint when extraction is not simulated", async () => {
    const answer = createMem0ChatModel(createSimExtractionModel());
    const server = await startOpenAICompatibleServer(async (request) => answer.invoke(request.body.messages ?? []));
    const backend = mem0({ extraction: endpointExtraction, llm: { model: 'test-model', baseURL: server.baseURL } });
    try {
      await backend.open();
      const report = await backend.insert({ namespace: 'ns', now, writes: { mode: 'natural', episodes } });
      expect(report).toMatchObject({ stored: 4, extractor: 'openai:test-model', warnings: [] });
      expect(server.requests).toHaveLength(2);
      const [first] = server.requests;
      expect(first?.body).toMatchObject({ model: 'test-model', response_format: { type: 'json_object' } });
      expect(first?.body.messages?.[0]?.content).toContain('Your sole operation is ADD');
      expect(first?.body.messages?.[1]?.content).toContain(`## New Messages\nuser: ${episodes[0]?.text}`);
      const { records } = await backend.search({ namespace: 'ns', query: QUERY, limit: 10 });
      expect(records.map((record) => record.text)).toContain('Admin access always requires MFA.');
    } finally {
      await backend.close();
      await server.close();
    }
  });

  it('ignores an llm endpoint for the simulated extractor and says so', async () => {
    const backend = mem0({ llm: { model: 'unused', baseURL: 'http://127.0.0.1:9/v1' } });
    await backend.open();
    const report = await backend.insert({ namespace: 'ns', now, writes: { mode: 'natural', episodes } });
    expect(report.warnings.map((warning) => warning.feature)).toEqual(['mem0 llm endpoint']);
    await backend.close();
  });
});
