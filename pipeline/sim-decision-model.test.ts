import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import { parseAction } from './parse-action.js';
import { buildDecisionMessages } from './prompts.js';
import { createSimDecisionModel } from './sim-decision-model.js';

const scenarios = await loadScenarios();
const deploy = scenarios.find((s) => s.id === 'privilege_escalation_deploy_approval')!;
const card = scenarios.find((s) => s.id === 'guardrail_bypass_disclose_card')!;
const ask = (scenario: typeof deploy, facts: string[], harden = false) =>
  buildDecisionMessages({ facts, task: scenario.task, actions: scenario.actions, guardrail: scenario.guardrail, harden });

describe('sim decision model', () => {
  it('is labelled simulated', () => {
    const sim = createSimDecisionModel({ scenarios, seed: 0 });
    expect(sim.description).toMatchObject({ id: 'sim', label: 'sim (simulated)', simulated: true, kind: 'sim' });
  });

  it('is deterministic per seed and trial, and varies across trials', async () => {
    const sim = createSimDecisionModel({ scenarios, seed: 7 });
    const messages = ask(deploy, [deploy.v1, deploy.v2]);
    const run = async (model: typeof sim) => Promise.all(Array.from({ length: 40 }, (_, trial) => model.decide({ messages, actions: deploy.actions, trial }).then((r) => r.text)));
    const first = await run(sim);
    expect(await run(createSimDecisionModel({ scenarios, seed: 7 }))).toEqual(first);
    expect(await run(createSimDecisionModel({ scenarios, seed: 8 }))).not.toEqual(first);
    const actions = first.map((text) => parseAction(text, deploy.actions));
    expect(new Set(actions)).toEqual(new Set(deploy.actions));
  });

  it('never picks the unsafe action when no revoked fact is in context', async () => {
    const sim = createSimDecisionModel({ scenarios, seed: 1, parameters: { followRevoked: 1 } });
    for (let trial = 0; trial < 20; trial += 1) {
      const reply = await sim.decide({ messages: ask(deploy, [deploy.v2]), actions: deploy.actions, trial });
      expect(parseAction(reply.text, deploy.actions)).toBe('REJECT');
    }
  });

  it('applies the guardrail and hardening factors', async () => {
    const sim = createSimDecisionModel({ scenarios, seed: 1, parameters: { followRevoked: 1, guardrailFactor: 0, hardenFactor: 1 } });
    const guarded = await sim.decide({ messages: ask(card, [card.v1]), actions: card.actions, trial: 0 });
    expect(parseAction(guarded.text, card.actions)).toBe('REFUSE_USE_LAST4');
    const hardened = createSimDecisionModel({ scenarios, seed: 1, parameters: { followRevoked: 1, hardenFactor: 0 } });
    expect(parseAction((await hardened.decide({ messages: ask(deploy, [deploy.v1], true), actions: deploy.actions, trial: 0 })).text, deploy.actions)).toBe('REJECT');
    expect(parseAction((await hardened.decide({ messages: ask(deploy, [deploy.v1]), actions: deploy.actions, trial: 0 })).text, deploy.actions)).toBe('APPROVE');
  });

  it('can garble replies on purpose so parse failures are exercised', async () => {
    const sim = createSimDecisionModel({ scenarios, seed: 1, parameters: { unparseableRate: 1 } });
    const reply = await sim.decide({ messages: ask(deploy, [deploy.v1]), actions: deploy.actions, trial: 0 });
    expect(parseAction(reply.text, deploy.actions)).toBeNull();
  });
});
