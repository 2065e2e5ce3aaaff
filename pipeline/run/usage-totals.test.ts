// Usage totals and provenance: what a run spent per model, and who answered.
import { describe, expect, it } from 'vitest';
import type { DecisionResponse } from '../models/decision-model.js';
import { provenanceOf, usageTotals } from './usage-totals.js';

const reply = (overrides: Partial<DecisionResponse> = {}): DecisionResponse => ({
  text: '{"action": "REJECT"}',
  sample: 'grid/unit',
  finishReason: 'stop',
  cached: false,
  attempts: 1,
  requested: { temperature: 0.7, max_completion_tokens: 2000 },
  sent: { temperature: 0.7, max_completion_tokens: 2000 },
  responseModel: 'gpt-5-nano-2025-08-07',
  systemFingerprint: 'fp_1',
  usage: { promptTokens: 1000, completionTokens: 100 },
  headers: {},
  notes: [],
  ...overrides,
});
const price = (model: string) => (model === 'gpt-5-nano' ? { input: 0.05, output: 0.4 } : null);

describe('usageTotals', () => {
  it('a reply that a Batch API job answered is priced at the batch price, a synchronous one at the standard price', () => {
    const tiered = (model: string, tier?: 'standard' | 'batch') =>
      model === 'gpt-5-nano' ? (tier === 'batch' ? { input: 0.025, output: 0.2 } : { input: 0.05, output: 0.4 }) : null;
    const [usage] = usageTotals(
      [
        { model: 'gpt-5-nano', reply: reply({ batch: 'batch_1' }) },
        { model: 'gpt-5-nano', reply: reply() },
      ],
      tiered,
    );
    // (1000 × 0.025 + 100 × 0.2) / 1e6 = 0.000045 for the batch reply, 0.00009 for the synchronous one.
    expect(usage!.costUsd).toBeCloseTo(0.000045 + 0.00009, 15);
  });

  it('sums tokens and dollars of sent replies; cache hits are free; reused copies do not count; retries are attempts', () => {
    const [usage] = usageTotals(
      [
        { model: 'gpt-5-nano', reply: reply({ attempts: 3 }) },
        { model: 'gpt-5-nano', reply: reply({ headers: { 'x-litellm-response-cost': '0.5' } }) },
        { model: 'gpt-5-nano', reply: reply({ cached: true, attempts: 0 }) },
        { model: 'gpt-5-nano', reply: reply({ attempts: 0 }), reused: true },
      ],
      price,
    );
    // usage × price for the first: (1000 × 0.05 + 100 × 0.4) / 1e6 = 0.00009; the proxy's cost for the second.
    expect(usage).toMatchObject({
      model: 'gpt-5-nano',
      replies: 3,
      sent: 2,
      cacheHits: 1,
      attempts: 4,
      inputTokens: 2000,
      outputTokens: 200,
      unknownCost: 0,
      costSources: { proxy: 1, price: 1 },
    });
    expect(usage!.costUsd).toBeCloseTo(0.50009, 10);
  });

  it('an offline reply (the simulator: no attempt, no cache hit) is neither sent nor spent', () => {
    const [usage] = usageTotals([{ model: 'sim', reply: reply({ attempts: 0, usage: null }) }], price);
    expect(usage).toMatchObject({ replies: 1, sent: 0, offline: 1, costUsd: 0, unknownCost: 0 });
  });

  it('a model with neither a proxy cost nor a price has an unknown total (null), never $0', () => {
    const [usage] = usageTotals([{ model: 'my-alias', reply: reply() }], price);
    expect(usage).toMatchObject({ costUsd: null, unknownCost: 1 });
  });
});

describe('provenanceOf', () => {
  it('tallies response models, fingerprints, proxy headers and parameters; warns on drift, fallbacks and dropped parameters', () => {
    const [entry] = provenanceOf([
      {
        model: 'gpt-5-nano',
        reply: reply({ headers: { 'x-litellm-version': '1.80.0', 'x-litellm-model-group': 'gpt-5-nano' } }),
      },
      {
        model: 'gpt-5-nano',
        reply: reply({ responseModel: 'gpt-4o-mini', headers: { 'x-litellm-attempted-fallbacks': '1' } }),
      },
      { model: 'gpt-5-nano', reply: reply({ sent: { max_completion_tokens: 2000 } }) },
      { model: 'gpt-5-nano', reply: reply({ cached: true, responseModel: 'ignored' }) },
    ]);
    expect(entry!.responseModels).toEqual({ 'gpt-5-nano-2025-08-07': 2, 'gpt-4o-mini': 1 });
    expect(entry!.litellmVersions).toEqual({ '1.80.0': 1 });
    expect(entry!.fallbacks).toBe(1);
    expect(entry!.sent).toEqual({
      '{"max_completion_tokens":2000,"temperature":0.7}': 2,
      '{"max_completion_tokens":2000}': 1,
    });
    expect(entry!.warnings.join('\n')).toMatch(/alias drift[\s\S]*proxy fallback[\s\S]*differ from those requested/);
  });
});
