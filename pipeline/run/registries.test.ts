// The pipeline's registries (decision models, experiments) and what is built from them: the run spec, --help, the spec hash.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { evalPhaseOf } from '../suites/eval-phases.js';
import { loadBackend, SYSTEMS } from '../../backends/index.js';
import { GRAPHITI_CORE_LABEL, GRAPHITI_CORE_VERSION } from '../../backends/graphiti-version.js';
import { createLexicalEmbedder } from '../../backends/lexical-embedder.js';
import { createSimExtractionModel } from '../../backends/sim-extraction-model.js';
import { InvalidInputError, UnsupportedFeatureError } from '#core/errors.js';
import { defineRegistry, factory, recordOf } from '#core/registry.js';
import { DEFAULT_RETRY_POLICY } from '#core/retry-policy.js';
import { loadScenarios } from '../../scenarios/index.js';
import { specFromArgs } from '../cli/cli.js';
import { evalUsage } from '../cli/cli-usage.js';
import type { DecisionModel } from '../models/decision-model.js';
import {
  createDecisionModel,
  decisionModelLineOf,
  decisionModelRecord,
  isRemoteModel,
  type DecisionModelEntry,
} from '../models/decision-models.js';
import { EXPERIMENTS } from './experiments.js';
import { FOLLOW_UP_EXPERIMENTS } from '../suites/follow-ups/index.js';
import { REGISTRIES } from './registries.js';
import { defaultRunId, parseRunSpec, runSpecSchema } from './run-spec.js';

const run = { seed: 0, baseURL: 'http://127.0.0.1:9/v1', timeoutMs: 60_000 };

describe('decision-model registry', () => {
  it('maps a --model alias to its line and records its settings', () => {
    expect([
      decisionModelLineOf('sim'),
      decisionModelLineOf('gpt-5-nano'),
      decisionModelLineOf('openai-compatible'),
    ]).toEqual(['sim', 'openai-compatible', 'openai-compatible']);
    expect([isRemoteModel('sim'), isRemoteModel('gpt-5-nano')]).toEqual([false, true]);
    expect(decisionModelRecord('gpt-5-nano', run)).toEqual({
      kind: 'decision-model',
      id: 'openai-compatible',
      args: {
        model: 'gpt-5-nano',
        baseURL: run.baseURL,
        temperature: 0.7,
        maxTokens: 2000,
        timeoutMs: 60_000,
        retry: DEFAULT_RETRY_POLICY,
      },
    });
    expect(decisionModelRecord('sim', run).args).toMatchObject({ seed: 0, parameters: { followRevoked: 0.5 } });
  });

  it('builds v1 models whose spec holds nothing for one implementation; what only one offers is a capability of its line', async () => {
    const scenarios = await loadScenarios();
    const sim = await createDecisionModel('sim', run, { scenarios, exploitScenarios: [], apiKey: undefined });
    expect(Object.keys(sim.model).sort()).toEqual(['decide', 'description', 'specificationVersion']);
    expect(sim.model.specificationVersion).toBe('v1');
    expect(sim.capabilities).toEqual({});
    const endpoint = await createDecisionModel('gpt-5-nano', run, { scenarios, exploitScenarios: [], apiKey: 'k' });
    expect(Object.keys(endpoint.capabilities).sort()).toEqual(['cacheLookup', 'temperatureFallbacks']);
    expect(endpoint.capabilities.temperatureFallbacks?.()).toEqual([]);
    expect(endpoint.model.description.settings).toMatchObject({
      temperature: 0.7,
      maxTokens: 2000,
      retry: DEFAULT_RETRY_POLICY,
    });
    expect(recordOf(endpoint)).toEqual(decisionModelRecord('gpt-5-nano', run));
    await expect(
      createDecisionModel('gpt-5-nano', run, { scenarios, exploitScenarios: [], apiKey: undefined }),
    ).rejects.toThrow(/OPENAI_API_KEY/);
  });

  it('refuses a model that follows another version of the spec', async () => {
    const future = {
      specificationVersion: 'v2',
      description: { id: 'x', label: 'x', kind: 'x', simulated: true, baseURL: null, settings: {} },
      decide: async () => {
        throw new Error('never');
      },
    };
    const line: DecisionModelEntry = {
      ...factory({
        summary: 'a v2 model',
        args: z.object({}).strict(),
        create: async () => ({ model: JSON.parse(JSON.stringify(future)) as DecisionModel, capabilities: {} }),
      }),
      remote: false,
      servesAliases: true,
      argsFor: () => ({}),
    };
    const registry = defineRegistry('decision-model', { future: line });
    await expect(
      createDecisionModel('anything', run, { scenarios: [], exploitScenarios: [], apiKey: undefined }, registry),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
  });
});

describe('experiment registry', () => {
  it('is the run spec enum, and every follow-up line has its steps bound under its own id', () => {
    expect(runSpecSchema.shape.experiment.unwrap().options).toEqual([...EXPERIMENTS.ids]);
    const followUps = EXPERIMENTS.ids.filter((id) => EXPERIMENTS.get(id).phase === 'follow-up');
    expect(Object.keys(FOLLOW_UP_EXPERIMENTS)).toEqual(followUps);
    for (const [id, steps] of Object.entries(FOLLOW_UP_EXPERIMENTS)) expect(steps.id).toBe(id);
  });

  it('fails a unit whose scenario is of the wrong set instead of running it', async () => {
    const [policy] = await loadScenarios();
    const unit = FOLLOW_UP_EXPERIMENTS.tools.start({} as never, policy!, { hops: 3, toolSteps: 4 });
    await expect(unit.done).rejects.toThrow(/not of this experiment's scenario set/);
  });
});

describe('built from the registries', () => {
  it('keys every registry by the kind its records and errors carry', () => {
    for (const [kind, registry] of Object.entries(REGISTRIES)) expect(registry.kind).toBe(kind);
  });

  it('--help lists every registered id of every kind, and every follow-up arm', () => {
    const help = evalUsage();
    for (const registry of Object.values(REGISTRIES)) {
      for (const id of registry.ids)
        expect(help, `${registry.kind} ${id}`).toMatch(
          new RegExp(
            `\\n\\s+${id}\\s+${registry
              .get(id)
              .summary.slice(0, 20)
              .replace(/[()[\]{}.*+?^$|\\]/g, '\\$&')}`,
          ),
        );
    }
    for (const id of EXPERIMENTS.ids)
      for (const arm of Object.keys(EXPERIMENTS.get(id).arms)) expect(help).toContain(arm);
  });

  it('--help names the graphiti-core release the port models, the same one the backend records', async () => {
    const line = evalUsage()
      .split('\n')
      .find((l) => /^\s+graphiti\s/.test(l));
    expect(line).toContain(GRAPHITI_CORE_LABEL);
    // No other release number anywhere on the line (it once said "Graphiti 0.29.3" beside a 0.31.2 port).
    expect(line?.match(/\d+\.\d+\.\d+/g)).toEqual([GRAPHITI_CORE_VERSION]);
    const workDir = mkdtempSync(join(tmpdir(), 'stalebench-help-'));
    try {
      const backend = await loadBackend('graphiti', {
        embedder: createLexicalEmbedder(),
        runId: 'r',
        workDir,
        extraction: createSimExtractionModel(),
      });
      expect(backend.description.summary.match(/\d+\.\d+\.\d+/g)).toEqual([GRAPHITI_CORE_VERSION]);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('the run spec refuses an id no registry line provides, naming the line kind, the available ids and the flag', () => {
    const problems = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      try {
        specFromArgs(argv, env);
        return [];
      } catch (error) {
        return error instanceof InvalidInputError
          ? error.issues.map((issue) => `${issue.path}: ${issue.message}`)
          : [String(error)];
      }
    };
    expect(problems(['--model', 'sim', '--systems', 'graphiti,notasystem'])).toEqual([
      `--systems: unknown system "notasystem"; available: ${SYSTEMS.ids.join(', ')}`,
    ]);
    expect(problems(['--model', 'sim', '--graph-engine', 'mongo'])).toEqual([
      '--engine: unknown graph-engine "mongo"; available: embedded, neo4j',
    ]);
    expect(problems(['--model', 'sim', '--embedder', 'word2vec'])).toEqual([
      '--embedder: unknown embedder "word2vec"; available: lexical, openai',
    ]);
    expect(() =>
      parseRunSpec({ ...specFromArgs(['--model', 'sim'], {}), extraction: { id: 'openai' } }, 'run spec', evalPhaseOf),
    ).toThrow(/extraction\.model/);
  });

  it('keeps the spec identity of every kind of run as it was before the registries (old runs resume)', () => {
    const env = {
      OPENAI_BASE_URL: 'http://127.0.0.1:4000',
      NEO4J_URI: 'bolt://db:7687',
      QDRANT_URL: 'http://q:6333',
      STALEBENCH_EMBEDDINGS_BASE_URL: 'http://e/v1',
    };
    // The grid's arms as the default was then (issue #26 made the paper's six the default: a different spec).
    const then = ['--arms', 'none,store-filter'];
    const ids = [
      ['--model', 'sim', ...then],
      [
        ...then,
        '--model',
        'gpt-5-nano',
        '--embedder',
        'openai',
        '--embedding-model',
        'nomic-embed-text',
        '--extraction-model',
        'gpt-4o-mini',
      ],
      ['--model', 'sim', '--engine', 'neo4j,qdrant', ...then],
      ['--model', 'sim', '--experiment', 'writeback', '--hops', '2'],
      ['--model', 'sim', '--experiment', 'tools', '--tool-steps', '3'],
    ]
      .map((argv) => specFromArgs(argv, env))
      .map((spec) => defaultRunId(spec, evalPhaseOf(spec.experiment)));
    // Measured on main before issue #13's registries (2669fd0).
    expect(ids).toEqual([
      'sim_0176893e',
      'gpt-5-nano_48ab8f62',
      'sim_9baa9851',
      'writeback_sim_4f5095c0',
      'tools_sim_94bed46e',
    ]);
  });
});
