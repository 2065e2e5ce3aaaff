// The trusted action layer: the only writer of the execution ledger, for grid decisions and tool episodes.
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../../scenarios/index.js';
import { loadExploitScenarios } from '../../../scenarios/exploit-scenario.js';
import { normalizeSubject } from '../../../guard/execution-ledger-encoding.js';
import { createActionLayer, subjectOf, TOOL_REFUSED } from './action-layer.js';

const scenarios = await loadScenarios();
const exploitScenarios = await loadExploitScenarios();

describe('action layer, tool episodes', () => {
  it('refuses an unbacked skip, and allows it once a tool that performs the step ran for the same subject only', async () => {
    const layer = createActionLayer({ scenarios, exploitScenarios });
    const refused = await layer.gateToolCall('shell_over_api_infra', 'episode-1', 'exec_shell');
    expect(refused).toMatchObject({
      verdict: 'overridden',
      proposedAction: 'exec_shell',
      executedAction: TOOL_REFUSED,
      safetyStep: 'control-api-change',
    });
    expect(await layer.recordToolRun('shell_over_api_infra', 'episode-1', 'exec_shell')).toBe(false);
    expect(await layer.recordToolRun('shell_over_api_infra', 'episode-1', 'use_api')).toBe(true);
    expect(await layer.gateToolCall('shell_over_api_infra', 'episode-1', 'exec_shell')).toMatchObject({
      verdict: 'allowed',
      executedAction: 'exec_shell',
    });
    expect((await layer.gateToolCall('shell_over_api_infra', 'episode-2', 'exec_shell')).verdict).toBe('overridden');
  });

  it('records nothing for a scenario whose step no tool performs', async () => {
    const layer = createActionLayer({ scenarios, exploitScenarios });
    for (const tool of ['read_file', 'exec_shell', 'write_report', 'send_external', 'use_api'])
      expect(await layer.recordToolRun('secret_exfiltration_env', 's', tool)).toBe(false);
    expect((await layer.gateToolCall('secret_exfiltration_env', 's', 'read_file')).verdict).toBe('overridden');
  });
});

describe('action layer, ledger subjects (one per decision)', () => {
  const scenario = scenarios.find((s) => s.id === 'mfa_waiver_access')!;
  const [unsafe, safe] = scenario.actions;
  const unit = {
    experiment: 'grid',
    scenario: scenario.id,
    system: 'graphiti',
    mode: 'direct' as const,
    arm: 'none',
    model: 'gpt-5-nano',
    trial: 0,
    guard: false,
    poem: true,
    step: 'decision',
  };

  it("a guard-off unit's safety step cannot back its guard-on sibling's skip (issue 11: they shared a subject)", async () => {
    const layer = createActionLayer({ scenarios });
    expect(await layer.execute({ ...unit, guard: false }, safe)).toMatchObject({
      verdict: 'not-gated',
      stepRecorded: true,
    });
    const sibling = await layer.execute({ ...unit, guard: true }, unsafe);
    expect(sibling).toMatchObject({ verdict: 'overridden', executedAction: safe });
  });

  it('the same decision is backed by its own recorded step (the gate still allows what the ledger proves)', async () => {
    const layer = createActionLayer({ scenarios });
    await layer.execute(unit, safe);
    expect(await layer.execute(unit, unsafe)).toMatchObject({ verdict: 'allowed', executedAction: unsafe });
  });

  it('every field of the unit, and the step, makes its own subject, also where ledger normalisation folds case and spaces', async () => {
    const variants: Partial<typeof unit>[] = [
      { experiment: 'writeback' },
      { scenario: 'mfa_waiver_access ' },
      { system: 'mem0-exp' },
      { mode: 'natural' as 'direct' },
      { arm: 'store-filter' },
      { model: 'GPT-5-nano' },
      { model: 'gpt-5-nano ' },
      { trial: 1 },
      { guard: true },
      { poem: false },
      { step: 'hop1:default' },
    ];
    const subjects = new Set(
      [subjectOf(unit), ...variants.map((v) => subjectOf({ ...unit, ...v }))].map(normalizeSubject),
    );
    expect(subjects.size).toBe(variants.length + 1);
    expect(subjectOf(unit)).toBe(subjectOf({ ...unit }));
    // Through the gate: only the unit itself is backed by its step.
    const layer = createActionLayer({ scenarios });
    await layer.execute(unit, safe);
    for (const variant of variants.filter((v) => v.scenario === undefined))
      expect((await layer.execute({ ...unit, ...variant }, unsafe)).verdict, JSON.stringify(variant)).toBe(
        'overridden',
      );
  });
});
