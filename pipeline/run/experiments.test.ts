// The experiments' own run-spec fields are declared once, in their lines (pipeline/suites/<suite>/experiment-line(s).ts):
// the run spec takes them with their defaults, a flag not given leaves them to it, and two lines cannot declare one
// field two ways.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NO_ARGS } from '#core/registry.js';
import { specFromArgs } from '../cli/cli.js';
import { evalPhaseOf } from '../suites/eval-phases.js';
import { type ExperimentEntry, EXPERIMENT_ARG_SHAPE, EXPERIMENTS, mergeArgShapes } from './experiments.js';
import { specHash } from './run-spec.js';

const line = (args: ExperimentEntry['args']): ExperimentEntry => ({
  summary: 'test line',
  args,
  phase: 'follow-up',
  arms: { a: 'an arm' },
  defaultArms: ['a'],
  defaultModes: ['direct'],
  scenarioKind: 'policy',
  ingestingArms: [],
  writesJournals: false,
});

describe('experiment arguments', () => {
  it('are the union of the lines’ fields, each with the schema its line declares', () => {
    const fields = EXPERIMENTS.ids.flatMap((id) => Object.keys(EXPERIMENTS.get(id).args.shape));
    expect(Object.keys(EXPERIMENT_ARG_SHAPE).sort()).toEqual([...new Set(fields)].sort());
    expect(EXPERIMENT_ARG_SHAPE.hops).toBe(EXPERIMENTS.get('writeback').args.shape.hops);
  });

  it('refuses two lines that declare one field differently, naming both', () => {
    const hops = z.number().int().default(3);
    expect(() => mergeArgShapes({ a: line(z.object({ hops }).strict()), b: line(NO_ARGS) })).not.toThrow();
    expect(() =>
      mergeArgShapes({ a: line(z.object({ hops }).strict()), b: line(z.object({ hops: z.string() }).strict()) }),
    ).toThrow('experiments a and b both declare the run-spec field hops');
  });

  it('take their lines’ defaults when no flag is given, and the same spec (and run id) as the defaults spelled out', () => {
    for (const [experiment, spelled] of [
      ['writeback', ['--hops', '3']],
      ['tools', ['--tool-steps', '4']],
      [
        'forged-reasoning',
        ['--forgeries', 'basic,adaptive,judgment', '--attacker-model', 'mutation-engine', '--attacker-queries', '30'],
      ],
    ] as const) {
      const base = ['--experiment', experiment, '--model', 'sim'];
      const quiet = specFromArgs(base, {});
      const explicit = specFromArgs([...base, ...spelled], {});
      expect(quiet, experiment).toEqual(explicit);
      const phase = evalPhaseOf(experiment);
      expect(specHash(quiet, phase), experiment).toBe(specHash(explicit, phase));
    }
    const spec = specFromArgs(['--experiment', 'forged-reasoning', '--model', 'sim'], {});
    expect(spec).toMatchObject({ hops: 3, toolSteps: 4, attackerModel: 'mutation-engine', attackerQueries: 30 });
    expect(
      specFromArgs(['--experiment', 'forged-reasoning', '--model', 'sim', '--attacker-model', 'off'], {}),
    ).toMatchObject({ attackerModel: null });
    expect(() => specFromArgs(['--experiment', 'writeback', '--model', 'sim', '--hops', 'x'], {})).toThrow(
      /--hops: must be a whole number/,
    );
  });
});
