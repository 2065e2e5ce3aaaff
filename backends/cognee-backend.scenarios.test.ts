import { describe, expect, it } from 'vitest';
import { exposureOf, labelRecords } from '../pipeline/suites/grid/exposure.js';
import { episodesFor } from '../pipeline/suites/grid/episodes.js';
import { loadScenarios } from '../scenarios/index.js';
import { createCogneeBackend } from './cognee-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const SCENARIOS = await loadScenarios();
const NOW = new Date('2026-09-01T12:00:00.000Z');
const backend = () =>
  createCogneeBackend({
    embedder: createLexicalEmbedder(),
    runId: 'scenarios',
    workDir: '/tmp/unused',
    extraction: createSimExtractionModel(),
  });

// The paper's cognee cells (stale-retrieval.md §3.4): a negative control in direct mode (v1 is never added), and
// in natural mode both episodes stay live as whole-document chunks, since nothing in cognee retires a chunk.
describe('cognee on every policy scenario (lexical embedder, k = 10)', () => {
  it('direct: lexical exposure in none; v2 and every distractor are retrieved', async () => {
    const cognee = backend();
    await cognee.open();
    expect(cognee.description.exposure).toEqual({ rule: 'lexical' });
    const exposed = [];
    for (const scenario of SCENARIOS) {
      await cognee.insert({
        namespace: scenario.id,
        now: NOW,
        writes: { mode: 'direct', revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors] },
      });
      const { records } = await cognee.search({ namespace: scenario.id, query: scenario.query, limit: 10 });
      expect(records.map((record) => record.text).sort()).toEqual([scenario.v2, ...scenario.distractors].sort());
      if (exposureOf(labelRecords(records, { rule: 'lexical' }, scenario)).exposed) exposed.push(scenario.id);
    }
    await cognee.close();
    expect(exposed).toEqual([]);
  });

  it('natural: both episode chunks stay live, so the v1 episode is exposed in every scenario', async () => {
    const cognee = backend();
    await cognee.open();
    const exposed = [];
    for (const scenario of SCENARIOS) {
      const episodes = episodesFor(scenario, NOW);
      await cognee.insert({ namespace: scenario.id, now: NOW, writes: { mode: 'natural', episodes } });
      const { records } = await cognee.search({ namespace: scenario.id, query: scenario.query, limit: 10 });
      expect(records.map((record) => record.text).sort()).toEqual(episodes.map((episode) => episode.text).sort());
      const labels = labelRecords(records, { rule: 'lexical' }, scenario);
      expect(labels.filter(Boolean)).toHaveLength(1);
      if (exposureOf(labels).exposed) exposed.push(scenario.id);
    }
    await cognee.close();
    expect(exposed).toEqual(SCENARIOS.map((scenario) => scenario.id));
  });
});
