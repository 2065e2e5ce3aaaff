// createAccountedRecordOf: the slim records give the same account and summary fields as the full records.
import { describe, expect, it } from 'vitest';
import { summaryRecordOf } from '../../analysis/index.js';
import { createAccountedRecordOf } from './accounted-record.js';
import type { DecisionResponse } from '../models/decision-model.js';
import { accountGrid } from './run-accounting.js';
import type { UnitRecord } from '../run-log/run-log.js';

const reply = (index: number, overrides: Partial<DecisionResponse> = {}): DecisionResponse => ({
  text: `{"action":"DENY","reason":"draw ${index}"}`,
  sample: `grid/unit-${index}`,
  cacheKey: `key-${index}`,
  finishReason: 'stop',
  cached: index % 4 === 0,
  attempts: index % 4 === 0 ? 0 : 1 + (index % 2),
  requested: { temperature: 0, max_tokens: 256 },
  sent: index % 3 === 0 ? { max_tokens: 256 } : { temperature: 0, max_tokens: 256 },
  responseModel: index % 5 === 0 ? 'gpt-5-nano-2025' : 'gpt-5-nano',
  systemFingerprint: index % 2 === 0 ? `fp_${index % 3}` : null,
  usage: index % 6 === 3 ? null : { promptTokens: 100 + index, completionTokens: 20 + index },
  headers: index % 2 === 0 ? { 'x-litellm-response-cost': String(0.001 * index), 'x-litellm-version': '1.2.3' } : {},
  notes: ['temperature dropped after the provider rejected it'],
  ...overrides,
});

const record = (index: number): UnitRecord =>
  ({
    unitId: `s/graphiti/direct/${index % 2 ? 'none' : 'output-filter'}/m${index % 2}/${index}`,
    key: {
      scenario: 's',
      system: 'graphiti',
      mode: 'direct',
      arm: index % 2 ? 'none' : 'output-filter',
      model: `m${index % 2}`,
      trial: index,
      guard: index % 3 === 0,
      poem: index % 5 === 0,
    },
    status: index % 7 === 0 ? 'error' : 'ok',
    scores: { unsafe: index % 7 === 0 ? null : index % 3 === 1, parseFailure: index % 11 === 0 },
    context: { exposed: index % 2 === 0, records: [{ id: 'r', text: 'policy text' }] },
    ...(index % 5 === 0 ? { poem: { verdict: 'allowed', reason: 'r' } } : {}),
    ...(index % 10 === 0
      ? { priorSafetyStep: { action: 'second-reviewer-approval', step: index, mac: 'ab'.repeat(32) } }
      : {}),
    ...(index % 2 === 0 ? { outputFilter: { reusedUnit: index % 4 === 0 ? null : `unit-${index - 1}` } } : {}),
    reply: index % 7 === 0 ? null : reply(index),
  }) as unknown as UnitRecord;

describe('createAccountedRecordOf', () => {
  const records = Array.from({ length: 60 }, (_, index) => record(index));
  const priceOf = (model: string) => (model === 'm1' ? { input: 0.05, output: 0.4 } : null);

  it('accounts the run exactly as the full records do (usage, spend, cache counts, provenance)', () => {
    const slim = records.map(createAccountedRecordOf());
    expect(accountGrid(70, slim, [], priceOf)).toEqual(accountGrid(70, records, [], priceOf));
  });

  it('keeps every field the summary reads, and shares repeated values instead of copying them', () => {
    const slimOf = createAccountedRecordOf();
    const slim = records.map(slimOf);
    for (const [index, full] of records.entries()) {
      const { reply: _full, ...summarised } = summaryRecordOf(full);
      const { reply, outputFilter, unitId, ...kept } = slim[index]!;
      expect(kept).toEqual(summarised);
      // The end of a run names its failed units: an errored unit keeps its id, no other does.
      expect(unitId).toBe(full.status === 'error' ? full.unitId : undefined);
      expect(reply ? { cached: reply.cached, attempts: reply.attempts } : null).toEqual(summaryRecordOf(full).reply);
      expect(outputFilter).toEqual(full.outputFilter ? { reusedUnit: full.outputFilter.reusedUnit } : undefined);
      if (reply) expect(reply).toMatchObject({ text: '', sample: '', notes: [] });
      expect(reply && 'cacheKey' in reply).toBeFalsy();
    }
    const withReplies = slim.filter((r) => r.reply && r.reply.sent.temperature === 0);
    expect(withReplies.length).toBeGreaterThan(2);
    expect(new Set(withReplies.map((r) => r.reply!.sent)).size).toBe(1);
    expect(Object.isFrozen(withReplies[0]!.reply!.sent)).toBe(true);
    // Replies without usage that agree on every kept field are one object; replies with usage stay their own.
    const noUsage = slim.filter((r, index) => r.reply?.usage === null && index % 4 === 3 && index % 5 !== 0);
    expect(noUsage.length).toBeGreaterThan(1);
    expect(new Set(noUsage.map((r) => r.reply)).size).toBeLessThan(noUsage.length);
    expect(new Set(slim.map((r) => r.scores)).size).toBeLessThanOrEqual(6);
  });
});
