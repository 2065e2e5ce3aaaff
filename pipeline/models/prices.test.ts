// Prices and token counts for the plan and the budget: sourced, overridable, unknown stays unknown.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { costOf, loadPrices, priceOf } from './prices.js';
import { createTokenCounter } from './token-count.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stalebench-prices-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('prices', () => {
  it('bundled prices carry their source; an alias no table knows has no price (never $0)', () => {
    const table = loadPrices();
    expect(priceOf(table, 'gpt-5-nano')).toEqual({ input: 0.05, output: 0.4, source: 'data/prices.json' });
    expect(priceOf(table, 'my-litellm-alias')).toBeNull();
    expect(costOf({ input: 0.05, output: 0.4 }, { input: 1_000_000, output: 500_000 })).toBeCloseTo(0.25, 10);
  });

  it('a --prices file overrides and extends the table', () => {
    const file = join(dir, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({ 'gpt-5-nano': { input: 1, output: 2 }, 'local-llama': { input: 0, output: 0 } }),
    );
    const table = loadPrices(file);
    expect(priceOf(table, 'gpt-5-nano')).toEqual({ input: 1, output: 2, source: file });
    expect(priceOf(table, 'local-llama')).toEqual({ input: 0, output: 0, source: file });
  });

  it('the batch tier (--batch): bundled batch prices with their source; a user entry without batch is unpriced', () => {
    const batch = loadPrices(null, 'batch');
    expect(priceOf(batch, 'gpt-5-nano')).toEqual({ input: 0.025, output: 0.2, source: 'data/prices.json (batch)' });
    // Every bundled model has a batch price of half its standard price (data/prices.json batchSource).
    const standard = loadPrices();
    for (const [model, price] of standard)
      expect(priceOf(batch, model)).toMatchObject({ input: price.input / 2, output: price.output / 2 });
    const file = join(dir, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        'gpt-5-nano': { input: 1, output: 2 },
        mine: { input: 1, output: 2, batch: { input: 0.4, output: 0.9 } },
      }),
    );
    expect(priceOf(loadPrices(file, 'batch'), 'gpt-5-nano')).toBeNull();
    expect(priceOf(loadPrices(file, 'batch'), 'mine')).toEqual({ input: 0.4, output: 0.9, source: `${file} (batch)` });
    expect(priceOf(loadPrices(file), 'mine')).toEqual({ input: 1, output: 2, source: file });
  });

  it('a bad --prices file is one error naming the file and each bad field', () => {
    const file = join(dir, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({ 'gpt-5-nano': { input: -1, output: 'cheap' }, x: { input: 1, output: 1, extra: 1 } }),
    );
    const error = (() => {
      try {
        loadPrices(file);
      } catch (caught) {
        return caught as InvalidInputError;
      }
      throw new Error('expected an error');
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.source).toBe(file);
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['gpt-5-nano.input', 'gpt-5-nano.output', 'x']);
    expect(() => loadPrices(join(dir, 'missing.json'))).toThrow(/file does not exist/);
    writeFileSync(file, '{ not json');
    expect(() => loadPrices(file)).toThrow(/not valid JSON/);
  });
});

describe('token counts', () => {
  const messages = [
    {
      role: 'system' as const,
      content:
        'You are a security policy compliance agent. Using ONLY the retrieved policy facts, decide the single correct action.',
    },
    {
      role: 'user' as const,
      content:
        'Retrieved policy facts:\n- Deployment approval requires two independent reviewers.\n\nQuestion: approve?',
    },
  ];

  it('an OpenAI model is counted with its own tokenizer, exactly', async () => {
    const counter = await createTokenCounter('gpt-5-nano');
    expect(counter).toMatchObject({ tokenizer: 'gpt-5-nano', exact: true });
    const count = counter.count(messages);
    expect(count).toBeGreaterThan(30);
    expect(count).toBeLessThan(80);
  });

  it('another alias gets a labelled o200k_base estimate; a path-like alias is never imported', async () => {
    for (const alias of ['my-litellm-alias', '../../package', 'anthropic/claude-x']) {
      const counter = await createTokenCounter(alias);
      expect(counter).toMatchObject({ tokenizer: 'o200k_base (estimate)', exact: false });
      expect(counter.count(messages)).toBeGreaterThan(30);
    }
  });
});
