// The architecture as a test (issue #27 items 1–2): outside the eval-phase registry and the per-suite phase files,
// pipeline/ never branches on an experiment's phase kind or on an experiment id; it asks the phase
// (pipeline/suites/eval-phases.ts `evalPhaseOf`, the members of pipeline/run/eval-phase-v1.ts).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnknownComponentError } from '#core/errors.js';
import { EXPERIMENTS } from '../run/experiments.js';
import { evalPhaseOf, evalPhases } from './eval-phases.js';
import {
  type BranchException,
  branchesIn,
  kindBranchPattern,
  productFiles,
  REPOSITORY,
} from '../test-support/branch-scan.js';

/** Where a phase kind may be named: the registry and each suite's own `eval-phase.ts`. */
const mayBranch = (path: string) => path === 'pipeline/suites/eval-phases.ts' || path.endsWith('/eval-phase.ts');

/**
 * A phase-kind branch: a comparison (`===`, `!==`, `case`) with an experiment or phase id literal, or with a value
 * named `experiment`, `phase` or `scenarioKind`, a membership test of one in a list, or the follow-up binding used as
 * a kind test (`isFollowUpExperiment`, `FOLLOW_UP_EXPERIMENTS`).
 */
const BRANCH = kindBranchPattern({
  ids: [...EXPERIMENTS.ids, ...evalPhases().map((phase) => phase.id)],
  names: ['experiment', 'phase', 'scenarioKind'],
  extra: ['\\b(isFollowUpExperiment|FOLLOW_UP_EXPERIMENTS)\\b'],
});

/** Named exceptions, each with its reason. */
const EXCEPTIONS: readonly BranchException[] = [
  {
    path: 'pipeline/suites/follow-ups/index.ts',
    text: 'export const FOLLOW_UP_EXPERIMENTS: { readonly [Id in FollowUpExperimentId]: FollowUpSteps } = {',
    reason: "the follow-ups' own id → steps lines, which only their eval phase reads",
  },
  {
    path: 'pipeline/defences/axes/index.ts',
    text: 'return AXES.filter((axis) => (axis.phases as readonly AxisPhase[]).includes(phase));',
    reason: 'the axis registry: which axes declare a phase (`AxisV1.phases`), read through the phase member `axes`',
  },
];

describe('eval-phase kinds are branched on only in the eval-phase registry and the phase files', () => {
  it('finds the branches it is meant to find (the check can fail)', () => {
    // Each of these was in pipeline/ before the eval-phase registry (a457d1d).
    for (const line of [
      "if (EXPERIMENTS.get(spec.experiment).phase === 'standalone') return await runForgedReasoningExperiment(run);",
      'const followUp = isFollowUpExperiment(spec.experiment) ? FOLLOW_UP_EXPERIMENTS[spec.experiment] : null;',
      "if (spec.experiment === 'writeback') return { min: 2, max: 2 + 2 * spec.hops };",
      "EXPERIMENTS.get(spec.experiment).scenarioKind === 'exploit' ? input.exploitScenarios : input.scenarios;",
      "...(spec.experiment === 'forged-reasoning' ? [AGENTS.record(spec.agent ?? 'prompt')] : []),",
      "if (phase !== 'grid') issues.push({ path: '--fail-on', message: 'grid cells only' });",
      "systems: list(values.systems, declared.phase === 'standalone' ? [] : DEFAULT_SYSTEM_IDS),",
      "if (spec.agent !== undefined && spec.agent !== 'prompt' && spec.experiment !== 'forged-reasoning')",
      "if (kind === 'forged-reasoning') {",
      "  case 'tools':",
      'const figures = FOLLOW_UPS.includes(spec.experiment);',
      'if (entry.phase === phase) continue;',
    ])
      expect(BRANCH.test(line), line).toBe(true);
    for (const line of [
      'const phase = evalPhaseOf(spec.experiment);',
      "calls: (settings, arm) => ({ min: 1, max: settings.toolSteps * (arm === 'none' ? 4 : 1) }),",
      "if (key.mode !== 'direct')",
      'if (refused) issues.push({ path: "--batch", message: refused(experiment) });',
    ])
      expect(BRANCH.test(line), line).toBe(false);
  });

  it('has none in pipeline/ outside pipeline/suites/eval-phases.ts and the eval-phase.ts files', () => {
    const files = productFiles(['pipeline']).filter((path) => !mayBranch(path));
    expect(files.length).toBeGreaterThan(200);
    expect(branchesIn(files, BRANCH, EXCEPTIONS)).toEqual([]);
  });

  it('registers every eval-phase file, once, each phase at the v1 contract under its own id', () => {
    const phaseFiles = productFiles(['pipeline']).filter((path) => path.endsWith('/eval-phase.ts'));
    expect(phaseFiles.length).toBe(evalPhases().length);
    const registry = readFileSync(join(REPOSITORY, 'pipeline', 'suites', 'eval-phases.ts'), 'utf8');
    for (const path of phaseFiles)
      expect(registry, path).toContain(`from './${relative('pipeline/suites', path).replace(/\.ts$/, '.js')}'`);
    expect(new Set(evalPhases().map((phase) => phase.id)).size).toBe(evalPhases().length);
    expect(evalPhases().every((phase) => phase.specificationVersion === 'v1')).toBe(true);
  });
});

describe('the eval-phase lookup', () => {
  it("finds every experiment's phase by its line's `phase`", () => {
    expect(Object.fromEntries(EXPERIMENTS.ids.map((id) => [id, evalPhaseOf(id).id]))).toEqual({
      grid: 'grid',
      writeback: 'follow-up',
      propagation: 'follow-up',
      tools: 'follow-up',
      'forged-reasoning': 'standalone',
    });
  });

  it('names an unknown experiment and every registered one', () => {
    expect(() => evalPhaseOf('no-such-experiment')).toThrow(UnknownComponentError);
    expect(() => evalPhaseOf('no-such-experiment')).toThrow(/available: grid, writeback, propagation, tools/);
  });
});
