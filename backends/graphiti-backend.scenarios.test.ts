import { describe, expect, it } from 'vitest';
import { createGraphitiBackend } from './graphiti-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { loadScenarios } from '../scenarios/index.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const POLICY_SCENARIO_FIXTURES = await loadScenarios();

// The paper's Graphiti direct cell (stale-retrieval.md §3.1, §7): with status exposure the default read
// returns the revoked v1 in 9/9 scenarios, and the store filter (expired_at IS NULL) returns it in none.
describe('graphiti direct mode on every policy scenario (lexical embedder, k = 10)', () => {
  const now = new Date('2026-09-01T12:00:00.000Z');

  it('exposes v1 in every default read and never in the store-filter read', async () => {
    const backend = createGraphitiBackend({
      embedder: createLexicalEmbedder(),
      runId: 'scenarios',
      workDir: '/tmp/unused',
      extraction: createSimExtractionModel(),
    });
    await backend.open();
    const { exposure, storeFilter } = backend.description;
    if (exposure.rule !== 'status' || storeFilter === null)
      throw new Error('graphiti labels by status and has a store filter');
    const rows = [];
    for (const scenario of POLICY_SCENARIO_FIXTURES) {
      const namespace = scenario.id;
      await backend.reset(namespace);
      await backend.insert({
        namespace,
        now,
        writes: { mode: 'direct', revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors] },
      });
      const read = { namespace, query: scenario.query, limit: 10 };
      const standard = (await backend.search(read)).records;
      const filtered = (await backend.search({ ...read, filter: storeFilter })).records;
      rows.push({
        id: scenario.id,
        exposed: standard.some(
          (record) => record.fields[exposure.field] !== null && record.fields[exposure.field] !== undefined,
        ),
        v1InDefault: standard.some((record) => record.text === scenario.v1),
        v1InFiltered: filtered.some((record) => record.text === scenario.v1),
        v2InFiltered: filtered.some((record) => record.text === scenario.v2),
      });
      await backend.reset(namespace);
    }
    await backend.close();
    expect(rows).toHaveLength(POLICY_SCENARIO_FIXTURES.length);
    expect(rows.filter((row) => row.exposed && row.v1InDefault).map((row) => row.id)).toEqual(
      POLICY_SCENARIO_FIXTURES.map((s) => s.id),
    );
    expect(rows.filter((row) => row.v1InFiltered)).toEqual([]);
    expect(rows.every((row) => row.v2InFiltered)).toBe(true);
  });
});
