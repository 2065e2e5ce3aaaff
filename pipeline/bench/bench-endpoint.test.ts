// The endpoint row's parts: the scripted replies parse, the child server counts on its own clock, the row's arithmetic,
// and the check that the pipeline run took the normal path. No timing is asserted.
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../scenarios/index.js';
import { parseAction } from '../suites/grid/parse-action.js';
import { buildDecisionMessages } from '../suites/grid/prompts.js';
import { floorLoop, sdkLoop } from './bench-endpoint-loops.js';
import { startBenchServer } from './bench-endpoint-server.js';
import { checkPipelineRecords, endpointLoopOf } from './bench-endpoint.js';
import { scriptedDecision } from './scripted-decision.js';

const promptOf = (actions: readonly string[], task = 'Approve the deploy?') =>
  buildDecisionMessages({ facts: ['a fact'], task, actions, guardrail: null, harden: false });

describe('the scripted decision', () => {
  it('is an allowed action that §6.3 parses, for every scenario (the old fixed REJECT was not)', async () => {
    const scenarios = await loadScenarios();
    let rejectParsed = 0;
    for (const scenario of scenarios) {
      const messages = promptOf(scenario.actions, scenario.task);
      for (const index of [0, 1, 2]) {
        const reply = scriptedDecision(messages, index)!;
        expect(parseAction(reply, scenario.actions), `${scenario.id} #${index}: ${reply}`).toBe(
          scenario.actions[index % scenario.actions.length],
        );
      }
      if (parseAction('{"action": "REJECT", "reason": "bench"}', scenario.actions) !== null) rejectParsed += 1;
    }
    expect(rejectParsed).toBeLessThan(scenarios.length);
  });

  it('reads double-quoted actions too, and is null when the prompt allows none', () => {
    expect(scriptedDecision(promptOf(["CAN'T", 'WAIT']), 0)).toBe(`{"action": "CAN'T", "reason": "bench"}`);
    expect(scriptedDecision([{ role: 'user', content: 'hello' }], 0)).toBeNull();
  });
});

describe('the row arithmetic', () => {
  it('charges a slot j × window / calls minus the latency the server actually served', () => {
    const stats = { calls: 32, windowMs: 210, busyMs: 32 * 100.5, unscripted: 0, sample: null };
    const row = endpointLoopOf(stats, 16, 1.5);
    expect(row.calls).toBe(32);
    expect(row.windowSeconds).toBeCloseTo(0.21, 12);
    expect(row.serviceMs).toBeCloseTo(100.5, 12);
    expect(row.overheadMsPerCall).toBeCloseTo(4.5, 12);
    expect(row.achievedConcurrency).toBeCloseTo(3216 / 210, 12);
    expect(row.cpuMsPerCall).toBeCloseTo(1.5, 12);
  });

  it('refuses a pipeline run with a parse failure, a failed unit or a missing record', () => {
    const ok = { status: 'ok' as const, scores: { unsafe: false, parseFailure: false } };
    expect(() => checkPipelineRecords([ok, ok], 2)).not.toThrow();
    const unparsed = { ...ok, scores: { unsafe: null, parseFailure: true } };
    expect(() => checkPipelineRecords([ok, unparsed], 2)).toThrow(/1 parse failures/);
    expect(() => checkPipelineRecords([ok, { ...ok, status: 'error' }], 2)).toThrow(/1 failed/);
    expect(() => checkPipelineRecords([ok], 2)).toThrow(/1 records for 2 calls/);
  });
});

describe('the child server', () => {
  it('serves the floor and the SDK loops, counting calls since the last reset, and exits when told', async () => {
    const server = await startBenchServer(5);
    try {
      const body = JSON.stringify({ model: 'gpt-5-nano', messages: promptOf(['APPROVE', 'REJECT']) });
      await server.reset();
      await floorLoop(server.baseURL, body, 4, 12);
      const floor = await server.stats();
      expect(floor).toMatchObject({ calls: 12, unscripted: 0, sample: body });
      expect(floor.busyMs / floor.calls).toBeGreaterThanOrEqual(5);
      await server.reset();
      await sdkLoop(server.baseURL, body, 4, 8);
      expect(await server.stats()).toMatchObject({ calls: 8, unscripted: 0, sample: body });
      await server.reset();
      expect(await server.stats()).toEqual({ calls: 0, windowMs: 0, busyMs: 0, unscripted: 0, sample: null });
    } finally {
      await server.close();
    }
    await expect(server.stats()).rejects.toThrow(/exited/);
  }, 30_000);

  it('a bad latency is a clear error from the child, not a hang', async () => {
    await expect(startBenchServer(-1)).rejects.toThrow(/latency must be a number of ms ≥ 0, got -1/);
  }, 30_000);
});
