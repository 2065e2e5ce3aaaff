// The follow-up write clock: every journal is dated strictly after the unit's seeding and after the journal before it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmbeddedGraphStore } from '../../../backends/embedded-graph-store.js';
import { createGraphitiBackend } from '../../../backends/graphiti-backend.js';
import { createLexicalEmbedder } from '../../../backends/lexical-embedder.js';
import { createSimExtractionModel } from '../../../backends/sim-extraction-model.js';
import { loadScenarios } from '../../../scenarios/index.js';
import { createActionLayer } from '../grid/action-layer.js';
import { decisionJournal } from './follow-up-prompts.js';
import {
  followUpDefences,
  nextWriteTime,
  policyWrites,
  readMemory,
  seedScenario,
  writeJournal,
  type UnitContext,
} from './follow-up-steps.js';
import { createSimDecisionModel } from '../../models/sim-decision-model.js';

const scenarios = await loadScenarios();

afterEach(() => vi.useRealTimers());

describe('nextWriteTime', () => {
  it('is now when the clock moved past the last write, else 1 ms after it', () => {
    const last = new Date('2026-09-01T12:00:00.123Z');
    expect(nextWriteTime({}, last)).toEqual(last);
    expect(nextWriteTime({ lastWriteAt: last }, new Date('2026-09-01T12:00:00.200Z')).toISOString()).toBe(
      '2026-09-01T12:00:00.200Z',
    );
    expect(nextWriteTime({ lastWriteAt: last }, last).toISOString()).toBe('2026-09-01T12:00:00.124Z');
    // A clock that stepped back (NTP) still never dates a write before the one it follows.
    expect(nextWriteTime({ lastWriteAt: last }, new Date('2026-09-01T11:59:59.000Z')).toISOString()).toBe(
      '2026-09-01T12:00:00.124Z',
    );
  });
});

describe('writeJournal (direct) under a clock that does not move', () => {
  it('dates each journal after the seeded policies and the journal before, so the guard sees it as newer', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const seededAt = new Date('2026-09-01T12:00:00.123Z');
    vi.setSystemTime(seededAt);
    const scenario = scenarios.find((s) => s.id === 'destructive_op_delete_backups')!;
    const backend = createGraphitiBackend({
      embedder: createLexicalEmbedder(),
      runId: 'clock',
      workDir: '/tmp/unused',
      extraction: createSimExtractionModel(),
      store: createEmbeddedGraphStore(),
    });
    await backend.open();
    const key = {
      ...{ experiment: 'writeback' as const, scenario: scenario.id, system: 'graphiti', mode: 'direct' as const },
      ...{ arm: 'direct', model: 'sim', trial: 0, guard: false, poem: false },
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
    await seedScenario(context, policyWrites(scenario, 'direct', seededAt), seededAt);
    const first = decisionJournal(scenario.id, scenario.actions[0], 'first');
    const second = decisionJournal(scenario.id, scenario.actions[0], 'second');
    await writeJournal(context, { text: first, mode: 'direct', afterHop: 0 });
    await writeJournal(context, { text: second, mode: 'direct', afterHop: 1 });
    const read = await readMemory(context, {
      query: scenario.query,
      read: 'default',
      defences: context.defences,
      scenario,
    });
    const createdAt = (text: string) => read.returned.find((r) => r.text === text)?.fields.created_at;
    expect(createdAt(scenario.v2)).toBe('2026-09-01T12:00:00.123Z');
    expect(createdAt(first)).toBe('2026-09-01T12:00:00.124Z');
    expect(createdAt(second)).toBe('2026-09-01T12:00:00.125Z');
    await backend.close();
  });
});
