// `--batch` in the follow-up phase (issue #31 item 1): on a system whose units must run one at a time (index-wide
// ranking statistics: Neo4j, graphiti-py) every call would be a job of its own, so the phase refuses before it opens
// the store or starts a unit. The rounds themselves are tested end to end in pipeline/batch/batch-follow-up.e2e.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Embedder } from '../../../backends/embedder.js';
import type { ExtractionModel } from '../../../backends/extraction-model.js';
import type { MemoryBackend } from '../../../backends/memory-backend.js';
import { loadScenarios } from '../../../scenarios/index.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import type { DecisionModel } from '../../models/decision-model.js';
import { FOLLOW_UP_EXPERIMENTS } from './index.js';
import { createActionLayer } from '../grid/action-layer.js';
import { runSuiteUnits } from '../suite-units.js';
import { createFollowUpSuite } from './suite.js';

const scenarios = (await loadScenarios()).slice(0, 2);

/** The follow-up suite's units on a system whose namespaces share ranking statistics (`independentNamespaces: false`). */
function phaseOnSharedStatistics() {
  const backend = {
    description: { id: 'one-at-a-time', independentNamespaces: false },
    open: vi.fn(async () => undefined),
    close: vi.fn(async () => undefined),
  } as unknown as MemoryBackend;
  const rounds = { join: vi.fn(() => () => undefined) };
  // The manifest the chained records file binds to.
  const runDir = mkdtempSync(join(tmpdir(), 'stalebench-phase-batch-'));
  writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ runId: 'phase-batch-test' }));
  const experiment = FOLLOW_UP_EXPERIMENTS.writeback;
  const suite = createFollowUpSuite(experiment);
  const units = suite.plan(
    suite.args.parse({
      scenarioIds: scenarios.map((scenario) => scenario.id),
      systems: ['one-at-a-time'],
      modes: ['direct'],
      arms: ['direct'],
      models: ['gpt-5-nano'],
      trials: 1,
      k: 5,
      settings: { hops: 3, toolSteps: 4 },
      axes: {},
      limit: null,
    }),
  );
  const stop = new AbortController().signal;
  const run = runSuiteUnits(suite, {
    runDir,
    units,
    setup: async () => ({
      runId: 'phase-batch-test',
      runDir,
      scenarios: new Map(scenarios.map((scenario) => [scenario.id, scenario])),
      models: new Map([['gpt-5-nano', { description: { id: 'gpt-5-nano' } } as DecisionModel]]),
      embedder: {} as Embedder,
      extraction: {} as ExtractionModel,
      loadBackend: async () => backend,
      concurrency: 4,
      rounds,
      k: 5,
      settings: { hops: 3, toolSteps: 4 },
      actions: createActionLayer({ scenarios, exploitScenarios: [], key: null }),
      stop,
    }),
    concurrency: 4,
    signal: stop,
    redact: (text) => text,
    log: () => {},
  });
  return { run, backend, rounds };
}

describe('the follow-up phase under --batch', () => {
  it('refuses a system whose units run one at a time, naming why, before it opens the store or starts a unit', async () => {
    const { run, backend, rounds } = phaseOnSharedStatistics();
    await expect(run).rejects.toThrow(UnsupportedFeatureError);
    await expect(run).rejects.toThrow(
      /one-at-a-time does not support --batch with --experiment writeback: its follow-up units run one at a time, each alone on the engine/,
    );
    expect(backend.open).not.toHaveBeenCalled();
    expect(backend.close).toHaveBeenCalledTimes(1);
    expect(rounds.join).not.toHaveBeenCalled();
  });
});
