import { describe, expect, it } from 'vitest';
import { evalPhaseOf } from '../suites/eval-phases.js';
import { POLICY_SCENARIO_IDS } from '../../scenarios/index.js';
import { specFromArgs } from '../cli/cli.js';
import { defaultRunId, specHash } from './run-spec.js';

describe('run spec from the command line', () => {
  it("resolves defaults: all systems, both modes, the paper's six arms, every registered scenario in grid order, 10 trials, k=10", () => {
    const spec = specFromArgs(['--model', 'sim'], {});
    expect(spec).toMatchObject({
      models: ['sim'],
      modes: ['direct', 'natural'],
      arms: ['none', 'store-filter', 'prompt-hardening', 'output-filter', 'filter-hardening', 'guard'],
      trials: 10,
      k: 10,
      concurrency: 4,
      baseURL: null,
    });
    expect(spec.scenarios).toEqual([...POLICY_SCENARIO_IDS]);
  });

  it('derives the run id from what defines the units, not from throughput settings', () => {
    const a = specFromArgs(['--model', 'sim', '--trials', '2'], {});
    const b = specFromArgs(['--model', 'sim', '--trials', '2', '-j', '9', '--out', 'elsewhere'], {});
    const c = specFromArgs(['--model', 'sim', '--trials', '3'], {});
    const grid = evalPhaseOf('grid');
    expect(defaultRunId(a, grid)).toBe(defaultRunId(b, grid));
    expect(specHash(a, grid)).not.toBe(specHash(c, grid));
    expect(defaultRunId(a, grid)).toMatch(/^sim_[0-9a-f]{8}$/);
  });

  it('takes the endpoint from OPENAI_BASE_URL for endpoint models, never the key', () => {
    const spec = specFromArgs(['--model', 'gpt-5-nano'], {
      OPENAI_BASE_URL: 'http://127.0.0.1:4000',
      OPENAI_API_KEY: 'sk-secret',
    });
    expect(spec.baseURL).toBe('http://127.0.0.1:4000');
    expect(JSON.stringify(spec)).not.toContain('sk-secret');
  });

  it('accepts --repeat and --epochs as aliases of --trials', () => {
    expect(specFromArgs(['--model', 'sim', '--repeat', '4'], {}).trials).toBe(4);
    expect(specFromArgs(['--model', 'sim', '--epochs', '5'], {}).trials).toBe(5);
  });

  it('reports every problem with its path', () => {
    expect(() => specFromArgs(['--trials', '0', '--modes', 'sideways'], {})).toThrow(/models[\s\S]*modes[\s\S]*trials/);
  });
});
