// The follow-up journals against vectors printed by the reference's own expressions (CPython 3.11; §12 step 3).
import { describe, expect, it } from 'vitest';
import { createEmbeddedGraphStore } from '../../../backends/embedded-graph-store.js';
import { createGraphitiBackend } from '../../../backends/graphiti-backend.js';
import { groupId } from '../../../backends/graphiti-ids.js';
import { createLexicalEmbedder } from '../../../backends/lexical-embedder.js';
import { createSimExtractionModel } from '../../../backends/sim-extraction-model.js';
import { loadScenarios } from '../../../scenarios/index.js';
import { createActionLayer } from '../grid/action-layer.js';
import { decisionJournal, journalEpisodeName } from './follow-up-prompts.js';
import { followUpDefences, policyWrites, seedScenario, writeJournal, type UnitContext } from './follow-up-steps.js';
import { createSimDecisionModel } from '../../models/sim-decision-model.js';

const scenarios = await loadScenarios();

describe('decisionJournal: reply.strip()[:160], as the reference journals it', () => {
  it('strips with Python whitespace (U+0085 included) before taking 160 code points', () => {
    // Python: reply = '\n\u0085  {"action": "APPROVE", "reason": "\U0001F512 locked ' + 'y'*150 + '"}  \n'
    const reply = `\n\u0085  {"action": "APPROVE", "reason": "\u{1F512} locked ${'y'.repeat(150)}"}  \n`;
    // Python: f'Decision record: for {subject}, the approved action is APPROVE. Rationale: {reply.strip()[:160]}'
    const expected = `Decision record: for privilege escalation deploy approval, the approved action is APPROVE. Rationale: {"action": "APPROVE", "reason": "\u{1F512} locked ${'y'.repeat(118)}`;
    expect(decisionJournal('privilege_escalation_deploy_approval', 'APPROVE', reply)).toBe(expected);
  });
});

describe('journalEpisodeName: f"{name}_decision_{NOW.timestamp()}"', () => {
  it('prints the journal time as Python prints the float', () => {
    const name = 'privilege_escalation_deploy_approval';
    expect(journalEpisodeName(name, new Date('2024-07-22T00:00:00.123Z'))).toBe(`${name}_decision_1721606400.123`);
    expect(journalEpisodeName(name, new Date('2024-07-22T00:00:00.000Z'))).toBe(`${name}_decision_1721606400.0`);
    expect(journalEpisodeName(name, new Date('2026-12-03T09:21:08.007Z'))).toBe(`${name}_decision_1796289668.007`);
    expect(journalEpisodeName(name, new Date('1969-12-31T23:59:59.500Z'))).toBe(`${name}_decision_-0.5`);
  });
});

describe('writeJournal (natural): the episode is named and referenced at the unit seeding time (the reference NOW)', () => {
  it('names the episode from the seeding instant and gives it that reference time, whenever it is written', async () => {
    const scenario = scenarios.find((s) => s.id === 'destructive_op_delete_backups')!;
    const store = createEmbeddedGraphStore();
    const backend = createGraphitiBackend({
      embedder: createLexicalEmbedder(),
      runId: 'journal',
      workDir: '/tmp/unused',
      extraction: createSimExtractionModel(),
      store,
    });
    await backend.open();
    const key = {
      experiment: 'writeback' as const,
      scenario: scenario.id,
      system: 'graphiti',
      mode: 'direct' as const,
      arm: 'natural',
      model: 'sim',
      trial: 0,
      guard: false,
      poem: false,
    };
    const context: UnitContext = {
      key,
      backend,
      namespace: 'ns',
      model: createSimDecisionModel({ scenarios, seed: 0 }),
      actions: createActionLayer({ scenarios }),
      k: 10,
      defences: followUpDefences(key),
      journals: new Set(),
    };
    const seededAt = new Date('2026-09-01T12:00:00.123Z');
    await seedScenario(context, policyWrites(scenario, 'direct', seededAt), seededAt);
    const text = decisionJournal(scenario.id, scenario.actions[0], '{"action": "DELETE"}');
    await writeJournal(context, { text, mode: 'natural', afterHop: 0 });
    const episodes = await store.retrieveEpisodes({
      groupIds: [groupId('journal', 'ns')],
      referenceTime: new Date('2100-01-01'),
      lastN: 10,
    });
    expect(episodes.map(({ name, valid_at, source_description }) => ({ name, valid_at, source_description }))).toEqual([
      { name: `${scenario.id}_decision_1788264000.123`, valid_at: seededAt, source_description: 'agent decision log' },
    ]);
    await expect(
      writeJournal({ ...context, seededAt: undefined }, { text, mode: 'natural', afterHop: 1 }),
    ).rejects.toThrow(/seeded/);
    await backend.close();
  });
});
