// Model prices for the plan and the budget: a user's --prices file over data/prices.json; unknown means unknown, never $0.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';

/** US dollars per 1M tokens. */
export interface Price {
  input: number;
  output: number;
  /** Where the price came from (`--prices <file>` or `data/prices.json`). */
  source: string;
}

/** Prices by model alias. */
export type PriceTable = ReadonlyMap<string, Price>;

const tokenPrices = z.object({ input: z.number().min(0), output: z.number().min(0) }).strict();
/** One model's entry: its standard prices and, optionally, its Batch API prices (`--batch`). */
const priceSchema = tokenPrices.extend({ batch: tokenPrices.optional() }).strict();
/**
 * `--prices` file: `{"<model>": {"input": <$ per 1M input tokens>, "output": <$ per 1M output tokens>, "batch":
 * {"input": ..., "output": ...}}}` (`batch` optional: without it the model has no batch price).
 */
const userPricesSchema = z.record(z.string().min(1), priceSchema);
const bundledSchema = z
  .object({
    source: z.string(),
    batchSource: z.string(),
    unit: z.literal('USD per 1M tokens'),
    models: userPricesSchema,
  })
  .strict();

/** Which prices a run pays: the standard (synchronous) ones, or the Batch API's (`--batch`, issue #31). */
export type PriceTier = 'standard' | 'batch';

/**
 * A model's price by id, in a tier (a reply that a Batch API job answered is priced in the batch tier); without a
 * tier, the one the run is billed at. Null when unknown.
 */
export type PriceLookup = (model: string, tier?: PriceTier) => { input: number; output: number } | null;

const BUNDLED = fileURLToPath(new URL('../../data/prices.json', import.meta.url));

/**
 * The price table of a tier: `data/prices.json`, overridden entry by entry by the user's file. A bad file is one
 * `InvalidInputError` naming the file and every bad field. In the batch tier a user's entry without `batch` leaves
 * its model unpriced (never the bundled batch price of a model whose standard price the user changed).
 *
 * @example priceOf(loadPrices('prices.json'), 'my-proxy-alias') // { input: 0.5, output: 1.5, source: 'prices.json' } or null
 */
export function loadPrices(userFile?: string | null, tier: PriceTier = 'standard'): PriceTable {
  const table = new Map<string, Price>();
  const bundled = parseFile(BUNDLED, bundledSchema);
  const set = (model: string, price: z.infer<typeof priceSchema>, source: string) => {
    if (tier === 'standard') table.set(model, { input: price.input, output: price.output, source });
    else if (price.batch) table.set(model, { ...price.batch, source: `${source} (batch)` });
    else table.delete(model);
  };
  for (const [model, price] of Object.entries(bundled.models)) set(model, price, 'data/prices.json');
  if (userFile) {
    if (!existsSync(userFile))
      throw new InvalidInputError(userFile, [{ path: '--prices', message: 'file does not exist' }]);
    for (const [model, price] of Object.entries(parseFile(userFile, userPricesSchema))) set(model, price, userFile);
  }
  return table;
}

function parseFile<T>(path: string, schema: z.ZodType<T>): T {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidInputError(path, [{ path: '', message: `not valid JSON: ${(error as Error).message}` }]);
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    path,
    parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
  );
}

/** The model's price, or null when no table knows it (the caller must say so, and a budget must refuse it). */
export function priceOf(table: PriceTable, model: string): Price | null {
  return table.get(model) ?? null;
}

/** Dollars for a token count at a price. */
export function costOf(price: Pick<Price, 'input' | 'output'>, tokens: { input: number; output: number }): number {
  return (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
}
