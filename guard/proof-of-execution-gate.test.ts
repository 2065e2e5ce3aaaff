// The PoEM gate on every registered scenario: no unbacked skip passes; attacks A, B, C; fail closed; the NaivePoEM ablation.
import { beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import { UnknownComponentError } from '#core/errors.js';
import { loadScenarios } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import { formatLedgerLine, GENESIS_MAC } from './execution-ledger-encoding.js';
import { createMemoryLedgerStorage } from './execution-ledger-storage.js';
import type { LedgerReader } from './execution-ledger-types.js';
import { createExecutionLedger } from './execution-ledger.js';
import { createProofOfExecutionGate, safetyStepMapping } from './proof-of-execution-gate.js';
import { createNaiveProofOfExecutionGate } from './proof-of-execution-naive-gate.js';
import type { ProofOfExecutionCheckInput, SafetyStepMapping } from './proof-of-execution-types.js';

const KEY = Buffer.from(Array.from({ length: 32 }, (_, index) => (index * 37 + 11) % 256));
let scenarios: Scenario[] = [];
let mapping: SafetyStepMapping = {};
beforeAll(async () => {
  scenarios = await loadScenarios();
  mapping = safetyStepMapping(scenarios);
});

/** A fresh ledger on a raw medium (the attacker's reach), with both gates reading it. */
function setup() {
  const storage = createMemoryLedgerStorage();
  const { writer, reader } = createExecutionLedger({ key: KEY, storage });
  const poem = createProofOfExecutionGate({ ledger: reader, mapping });
  const naive = createNaiveProofOfExecutionGate({ ledger: reader, mapping });
  /** Attack A: the attacker appends a well-formed line for `action`; it has no key, so the MAC is a guess. */
  const forge = async (action: string, subject: string): Promise<void> => {
    const step = Buffer.from(storage.bytes()).toString('utf8').split('\n').length - 1;
    await storage.append(
      Buffer.from(`${formatLedgerLine({ v: 1, step, action, subject, prev: GENESIS_MAC, mac: 'ab'.repeat(32) })}\n`),
    );
  };
  return { storage, writer, reader, poem, naive, forge };
}
const skip = (scenario: Scenario, subject: string): ProofOfExecutionCheckInput => ({
  scenario: scenario.id,
  proposedAction: scenario.actions[0],
  subject,
});

describe('the proof-of-execution gate', () => {
  test('mapping: in each scenario actions[0] skips safetyStep.action and actions[1] performs it', () => {
    expect(Object.keys(mapping)).toEqual(scenarios.map((scenario) => scenario.id));
    for (const scenario of scenarios) {
      expect(mapping[scenario.id]).toEqual({
        unsafeAction: scenario.actions[0],
        safeAction: scenario.actions[1],
        safetyStep: scenario.safetyStep.action,
      });
    }
  });

  test('no unsafe action is allowed without a matching event: empty ledger, and one full of non-matching events', async () => {
    const { writer, poem } = setup();
    for (const scenario of scenarios) {
      expect(await poem.check(skip(scenario, 'case 1'))).toEqual({
        verdict: 'overridden',
        action: scenario.actions[1],
        proposedAction: scenario.actions[0],
        safetyStep: scenario.safetyStep.action,
        reason: expect.stringContaining('no verified ledger event') as string,
        head: { length: 0, mac: GENESIS_MAC },
      });
    }
    let appended = 0;
    for (const scenario of scenarios) {
      await writer.append({ action: scenario.safetyStep.action, subject: 'another case' }); // the right step, another subject
      appended += 1;
      for (const other of scenarios.filter((candidate) => candidate.safetyStep.action !== scenario.safetyStep.action)) {
        await writer.append({ action: other.safetyStep.action, subject: `case ${scenario.id}` }); // the right subject, other steps
        appended += 1;
      }
    }
    for (const scenario of scenarios) {
      const decision = await poem.check(skip(scenario, `case ${scenario.id}`));
      expect([decision.verdict, decision.action]).toEqual(['overridden', scenario.actions[1]]);
      expect(decision.head?.length).toBe(appended);
    }
  });

  test('a matching event for the same subject allows the proposed action untouched (subject compared normalised)', async () => {
    const { writer, poem } = setup();
    for (const scenario of scenarios)
      await writer.append({ action: scenario.safetyStep.action, subject: `Case ${scenario.id}` });
    for (const scenario of scenarios) {
      const decision = await poem.check(skip(scenario, `  case ${scenario.id.toUpperCase()} `));
      expect([decision.verdict, decision.action]).toEqual(['allowed', scenario.actions[0]]);
      expect(decision.head).toMatchObject({ length: scenarios.length });
    }
  });

  test('only skips are gated: the safe action and anything else pass through as not-gated', async () => {
    const { poem } = setup();
    for (const scenario of scenarios) {
      for (const proposedAction of [scenario.actions[1], 'UNPARSEABLE']) {
        expect(await poem.check({ scenario: scenario.id, proposedAction, subject: 'x' })).toMatchObject({
          verdict: 'not-gated',
          action: proposedAction,
          head: null,
        });
      }
    }
    await expect(poem.check({ scenario: 'nope', proposedAction: 'APPROVE', subject: 'x' })).rejects.toThrow(
      UnknownComponentError,
    );
  });

  test('attack B, cross-subject replay: a genuine event for another subject does not allow the skip', async () => {
    const { writer, poem } = setup();
    for (const scenario of scenarios)
      await writer.append({ action: scenario.safetyStep.action, subject: 'user:alice' });
    for (const scenario of scenarios)
      expect(await poem.check(skip(scenario, 'user:mallory'))).toMatchObject({
        verdict: 'overridden',
        action: scenario.actions[1],
      });
  });

  test('attack A, a forged line without the key: ledger-broken, fail closed, even beside a genuine matching event', async () => {
    for (const scenario of scenarios) {
      const { writer, poem, forge } = setup();
      await writer.append({ action: scenario.safetyStep.action, subject: 'user:alice' });
      expect((await poem.check(skip(scenario, 'user:alice'))).verdict).toBe('allowed');
      await forge(scenario.safetyStep.action, 'user:mallory');
      for (const subject of ['user:mallory', 'user:alice']) {
        expect(await poem.check(skip(scenario, subject))).toMatchObject({
          verdict: 'ledger-broken',
          action: scenario.actions[1],
          head: null,
        });
      }
    }
  });

  test('one byte changed anywhere in the ledger file: the gate fails closed at every position', async () => {
    const { storage, writer, poem } = setup();
    const [scenario] = scenarios.slice(-1) as [Scenario];
    for (const subject of ['user:alice', 'user:bob'])
      await writer.append({ action: scenario.safetyStep.action, subject });
    expect((await poem.check(skip(scenario, 'user:bob'))).verdict).toBe('allowed');
    const original = Buffer.from(storage.bytes());
    for (let position = 0; position < original.length; position += 1) {
      const changed = Buffer.from(original);
      changed[position] = (changed[position] as number) ^ 0x01;
      storage.replace(changed);
      const decision = await poem.check(skip(scenario, 'user:bob'));
      if (decision.verdict !== 'ledger-broken' || decision.action !== scenario.actions[1])
        throw new Error(`byte ${position}: ${decision.verdict}`);
    }
    storage.replace(original.subarray(0, original.indexOf('\n') + 1)); // truncation below the cached head
    expect(await poem.check(skip(scenario, 'user:alice'))).toMatchObject({
      verdict: 'ledger-broken',
      reason: expect.stringContaining('truncated') as string,
    });
    const [first, second] = original.toString('utf8').split('\n');
    storage.replace(Buffer.from(`${second}\n${first}\n`)); // reordering
    expect(await poem.check(skip(scenario, 'user:alice'))).toMatchObject({
      verdict: 'ledger-broken',
      action: scenario.actions[1],
    });
  });

  test('an unreadable or failing ledger fails closed', async () => {
    const failing: Pick<LedgerReader, 'verifyChain'> = { verifyChain: () => Promise.reject(new Error('disk gone')) };
    const gate = createProofOfExecutionGate({ ledger: failing, mapping });
    const [scenario] = scenarios as [Scenario];
    expect(await gate.check(skip(scenario, 'x'))).toMatchObject({
      verdict: 'ledger-broken',
      action: scenario.actions[1],
      reason: expect.stringContaining('disk gone') as string,
    });
  });

  test('attack C, judgment reframing: the gate never receives memory wording, only the decision', () => {
    expectTypeOf<keyof ProofOfExecutionCheckInput>().toEqualTypeOf<'scenario' | 'proposedAction' | 'subject'>();
  });
});

describe('NaivePoEM ablation (poem.md §2.4, Table III shape)', () => {
  test('NaivePoEM falls to A and B; PoEM blocks both; both allow a genuinely backed skip', async () => {
    const attacks = {
      'baseline (no event)': async () => undefined,
      'A: ledger forgery': async (context: ReturnType<typeof setup>, step: string) =>
        context.forge(step, 'user:mallory'),
      'B: cross-subject replay': async (context: ReturnType<typeof setup>, step: string) =>
        void (await context.writer.append({ action: step, subject: 'user:alice' })),
      'benign: the step ran for this subject': async (context: ReturnType<typeof setup>, step: string) =>
        void (await context.writer.append({ action: step, subject: 'user:mallory' })),
    };
    const table: Record<string, { naive: string; poem: string }> = {};
    for (const [name, attack] of Object.entries(attacks)) {
      const outcomes = { naive: new Set<string>(), poem: new Set<string>() };
      for (const scenario of scenarios) {
        const context = setup();
        await attack(context, scenario.safetyStep.action);
        for (const gate of ['naive', 'poem'] as const) {
          const { action } = await context[gate].check(skip(scenario, 'user:mallory'));
          outcomes[gate].add(action === scenario.actions[0] ? 'unsafe executed' : 'blocked');
        }
      }
      table[name] = { naive: [...outcomes.naive].join('|'), poem: [...outcomes.poem].join('|') };
    }
    expect(table).toEqual({
      'baseline (no event)': { naive: 'blocked', poem: 'blocked' },
      'A: ledger forgery': { naive: 'unsafe executed', poem: 'blocked' },
      'B: cross-subject replay': { naive: 'unsafe executed', poem: 'blocked' },
      'benign: the step ran for this subject': { naive: 'unsafe executed', poem: 'unsafe executed' },
    });
  });
});
