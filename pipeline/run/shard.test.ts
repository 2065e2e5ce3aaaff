import { describe, expect, it } from 'vitest';
import { evalPhaseOf } from '../suites/eval-phases.js';
import { InvalidInputError } from '#core/errors.js';
import type { UnitKey } from '../run-log/run-log.js';
import { checkSameShard, inShard, parseShard, shardKeyOf, shardOf, shardOfKey, shardRunId } from './shard.js';
import { DEFAULT_RUN_CONTROL } from './run-spec.js';

const key = (over: Partial<UnitKey> = {}): UnitKey => ({
  scenario: 's',
  system: 'graphiti',
  mode: 'direct',
  arm: 'none',
  model: 'sim',
  trial: 0,
  guard: false,
  poem: false,
  ...over,
});

/** Every unit of a grid of `models` × 8 scenarios × 3 systems × 2 modes × 4 arms × `trials`. */
function grid(models: string[], trials: number): UnitKey[] {
  const keys: UnitKey[] = [];
  for (const model of models)
    for (const scenario of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])
      for (const system of ['graphiti', 'mem0', 'zep-ce'])
        for (const mode of ['direct', 'natural'] as const)
          for (const arm of ['none', 'store-filter', 'guard', 'output-filter'] as const)
            for (let trial = 0; trial < trials; trial += 1)
              keys.push(key({ model, scenario, system, mode, arm, trial }));
  return keys;
}

describe('--shard auto', () => {
  const auto = (env: Record<string, string>) => parseShard('auto', env);

  it('takes a Kubernetes Indexed Job or a GitHub Actions matrix shard, 0-based there and 1-based here', () => {
    expect(auto({ JOB_COMPLETION_INDEX: '0', JOB_COMPLETIONS: '3' })).toEqual({ index: 1, count: 3 });
    expect(auto({ JOB_COMPLETION_INDEX: '2', JOB_COMPLETIONS: '3' })).toEqual({ index: 3, count: 3 });
    expect(auto({ STALEBENCH_SHARD_INDEX: '1', STALEBENCH_SHARD_COUNT: '4' })).toEqual({ index: 2, count: 4 });
    // Both set and agreeing (a matrix inside a Job template): one shard.
    expect(
      auto({
        JOB_COMPLETION_INDEX: '1',
        JOB_COMPLETIONS: '4',
        STALEBENCH_SHARD_INDEX: '1',
        STALEBENCH_SHARD_COUNT: '4',
      }),
    ).toEqual({ index: 2, count: 4 });
  });

  it('refuses, naming the variables, when no scheduler set one, half a pair, a bad number or two that disagree', () => {
    expect(() => auto({})).toThrow(
      /--shard auto: no scheduler set a shard: set JOB_COMPLETION_INDEX and JOB_COMPLETIONS \(a Kubernetes Indexed Job\), or STALEBENCH_SHARD_INDEX and STALEBENCH_SHARD_COUNT/,
    );
    expect(() => auto({ JOB_COMPLETION_INDEX: '0' })).toThrow(/JOB_COMPLETIONS is not set/);
    expect(() => auto({ STALEBENCH_SHARD_COUNT: '2' })).toThrow(/STALEBENCH_SHARD_INDEX is not set/);
    expect(() => auto({ JOB_COMPLETION_INDEX: '3', JOB_COMPLETIONS: '3' })).toThrow(
      /JOB_COMPLETION_INDEX must be a whole number from 0 to 2 \(got "3"\)/,
    );
    expect(() => auto({ JOB_COMPLETION_INDEX: '-1', JOB_COMPLETIONS: '3' })).toThrow(/from 0 to 2/);
    expect(() => auto({ JOB_COMPLETION_INDEX: '0', JOB_COMPLETIONS: 'three' })).toThrow(
      /JOB_COMPLETIONS must be a whole/,
    );
    expect(() => auto({ JOB_COMPLETION_INDEX: '0', JOB_COMPLETIONS: '0' })).toThrow(/from 1 to 1024/);
    expect(() =>
      auto({
        JOB_COMPLETION_INDEX: '0',
        JOB_COMPLETIONS: '2',
        STALEBENCH_SHARD_INDEX: '1',
        STALEBENCH_SHARD_COUNT: '2',
      }),
    ).toThrow(/a Kubernetes Indexed Job says shard 1\/2, a GitHub Actions matrix says 2\/2/);
  });

  it('reads the process environment by default, so every command taking --shard takes auto', () => {
    const saved = { ...process.env };
    try {
      process.env.JOB_COMPLETION_INDEX = '1';
      process.env.JOB_COMPLETIONS = '2';
      expect(parseShard('auto')).toEqual({ index: 2, count: 2 });
    } finally {
      for (const name of ['JOB_COMPLETION_INDEX', 'JOB_COMPLETIONS']) if (!(name in saved)) delete process.env[name];
    }
  });
});

describe('--shard i/n', () => {
  it('parses i/n and names --shard with the reason for anything else', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/3', '4/3', '3', '1/0', 'a/b', '-1/3', '1/2000'])
      expect(() => parseShard(bad), bad).toThrow(/--shard: must be i\/n/);
  });

  it('puts every unit in exactly one shard, balanced within 5% of an even split', () => {
    const keys = grid(['sim', 'gpt-5-nano'], 10);
    const shards = [1, 2, 3].map((index) => keys.filter((k) => inShard({ index, count: 3 }, k)));
    expect(shards.reduce((sum, s) => sum + s.length, 0)).toBe(keys.length);
    for (const shard of shards) expect(Math.abs(shard.length - keys.length / 3)).toBeLessThan(keys.length * 0.05);
    expect(keys.every((k) => inShard(null, k))).toBe(true);
  });

  it('keeps every unit in its shard when the grid grows (another model, more trials)', () => {
    const before = grid(['sim'], 5);
    const after = grid(['sim', 'gpt-5-nano'], 12);
    const shardOfUnit = (k: UnitKey) => shardOfKey(shardKeyOf(k), 4);
    const grown = new Map(after.map((k) => [JSON.stringify(k), shardOfUnit(k)]));
    expect(before.every((k) => grown.has(JSON.stringify(k)))).toBe(true);
    expect(before.filter((k) => grown.get(JSON.stringify(k)) !== shardOfUnit(k))).toEqual([]);
  });

  it('puts the output filter with the none reply it reuses, in every shard count', () => {
    for (const count of [2, 3, 7])
      for (const unit of grid(['sim'], 3).filter((k) => k.arm === 'output-filter'))
        expect(shardOfKey(shardKeyOf(unit), count)).toBe(shardOfKey(shardKeyOf({ ...unit, arm: 'none' }), count));
  });

  it('gives each shard its own run id, and refuses a follow-up experiment with a shard', () => {
    expect(shardRunId('sim_1a2b3c4d', { index: 2, count: 3 })).toBe('sim_1a2b3c4d_shard2of3');
    expect(shardRunId('sim_1a2b3c4d', null)).toBe('sim_1a2b3c4d');
    const control = { ...DEFAULT_RUN_CONTROL, shard: { index: 1, count: 2 } };
    expect(shardOf({ experiment: 'grid', control }, evalPhaseOf('grid'))).toEqual({ index: 1, count: 2 });
    expect(() => shardOf({ experiment: 'writeback', control }, evalPhaseOf('writeback'))).toThrow(
      /--shard: splits the grid only/,
    );
  });

  it('refuses to resume a run directory with another split', () => {
    const error = (() => {
      try {
        checkSameShard('/runs/x', { shard: { index: 1, count: 3 } }, { index: 2, count: 3 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(String((error as Error).message)).toMatch(/holds shard 1\/3, not shard 2\/3/);
    expect(() => checkSameShard('/runs/x', {}, { index: 1, count: 2 })).toThrow(
      /an unsplit run, not shard 1\/2; pick another --run-id or --out/,
    );
    expect(() => checkSameShard('/runs/x', {}, { index: 1, count: 2 }, 'pick another -o')).toThrow(
      /an unsplit run, not shard 1\/2; pick another -o$/,
    );
    expect(() => checkSameShard('/runs/x', { shard: { index: 1, count: 2 } }, { index: 1, count: 2 })).not.toThrow();
    expect(() => checkSameShard('/runs/x', undefined, { index: 1, count: 2 })).not.toThrow();
  });
});
