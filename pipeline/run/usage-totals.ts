// Totals per model over a run's replies: calls sent, cache hits, tokens, dollars; and the provider provenance the manifest
// summarises. Run accounting (run-accounting.ts) writes them into the manifest; analysis reads them from there.
import type { DecisionResponse } from '../models/decision-model.js';
import type { PriceLookup } from '../models/prices.js';

/** One reply a run recorded, with the model it came from. `reused`: the output-filter arm's copy of another unit's reply. */
export interface RecordedReply {
  model: string;
  reply: DecisionResponse;
  reused?: boolean;
}

/** What one model cost. */
export interface ModelUsage {
  model: string;
  /** Replies the run used (cache hits included, reused copies excluded). */
  replies: number;
  /** Replies that came from the endpoint (not the cache). */
  sent: number;
  /** Replies made without any call (the offline simulator): nothing sent, nothing spent. */
  offline: number;
  cacheHits: number;
  /** Provider attempts, retries included. */
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Dollars: the proxy's `x-litellm-response-cost` where present, else usage × price; null when any sent reply has neither. */
  costUsd: number | null;
  /** Sent replies whose cost is unknown (no proxy cost and no price). */
  unknownCost: number;
  costSources: { proxy: number; price: number };
}

/** Per-model totals. Cache hits cost $0 and add no tokens; reused copies are not counted at all. */
export function usageTotals(replies: Iterable<RecordedReply>, priceOf: PriceLookup): ModelUsage[] {
  const tally = createUsageTally(priceOf);
  for (const reply of replies) tally.add(reply);
  return tally.totals();
}

/**
 * Per-model totals kept as replies arrive (the live line and this invocation's share of the final lines read one,
 * the manifest's `usage` another over every record): one way of pricing a reply for every surface.
 *
 * @example const tally = createUsageTally(priceOf); tally.add({ model, reply }); tally.totals();
 */
export function createUsageTally(priceOf: PriceLookup) {
  const byModel = new Map<string, ModelUsage>();
  return {
    /** Counts one reply. */
    add({ model, reply, reused }: RecordedReply): void {
      if (reused) return;
      const usage = byModel.get(model) ?? {
        model,
        replies: 0,
        sent: 0,
        offline: 0,
        cacheHits: 0,
        attempts: 0,
        inputTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        costUsd: 0,
        unknownCost: 0,
        costSources: { proxy: 0, price: 0 },
      };
      byModel.set(model, usage);
      usage.replies += 1;
      usage.attempts += reply.attempts;
      if (reply.cached) {
        usage.cacheHits += 1;
        return;
      }
      // No attempt and no cache hit: the reply was made offline (the simulator); nothing went over the wire.
      if (reply.attempts === 0) {
        usage.offline += 1;
        return;
      }
      usage.sent += 1;
      usage.inputTokens += reply.usage?.promptTokens ?? 0;
      usage.outputTokens += reply.usage?.completionTokens ?? 0;
      usage.reasoningTokens += reply.usage?.reasoningTokens ?? 0;
      const proxyCost = Number(reply.headers['x-litellm-response-cost']);
      // A reply that a Batch API job answered is priced at the batch price, whatever the invocation that reads it.
      const price = priceOf(model, reply.batch === undefined ? 'standard' : 'batch');
      let cost: number | null = null;
      if (reply.headers['x-litellm-response-cost'] !== undefined && Number.isFinite(proxyCost)) {
        cost = proxyCost;
        usage.costSources.proxy += 1;
      } else if (price && reply.usage) {
        cost = (reply.usage.promptTokens * price.input + reply.usage.completionTokens * price.output) / 1_000_000;
        usage.costSources.price += 1;
      }
      if (cost === null) usage.unknownCost += 1;
      else if (usage.costUsd !== null) usage.costUsd += cost;
    },
    /** The totals so far, per model in order of first reply; `costUsd` null for a model with any reply of unknown cost. */
    totals(): ModelUsage[] {
      return [...byModel.values()].map((usage) => ({
        ...usage,
        costSources: { ...usage.costSources },
        costUsd: usage.unknownCost > 0 ? null : usage.costUsd,
      }));
    },
  };
}

/** Dollars over every model, null when any model's cost is unknown. */
export function totalCostUsd(usage: readonly ModelUsage[]): number | null {
  let total = 0;
  for (const entry of usage) {
    if (entry.costUsd === null) return null;
    total += entry.costUsd;
  }
  return total;
}

/** Counts of each distinct value. */
type Tally = Record<string, number>;

/** What the providers said about themselves over a run, per model (manifest, not per record). */
export interface ModelProvenance {
  model: string;
  /** `response.model` values: more than one key means the alias drifted within the run. */
  responseModels: Tally;
  systemFingerprints: Tally;
  litellmVersions: Tally;
  /** `x-litellm-model-group` / `x-litellm-model-id`: which deployment behind the alias answered. */
  modelGroups: Tally;
  modelIds: Tally;
  /** Replies where the proxy reported a fallback (`x-litellm-attempted-fallbacks` > 0): another model answered. */
  fallbacks: number;
  /** Sampling parameters requested and sent, each as canonical JSON, with counts. */
  requested: Tally;
  sent: Tally;
  /** Plain warnings: alias drift, fallbacks, parameters dropped. */
  warnings: string[];
}

const bump = (tally: Tally, key: string | null | undefined) => {
  if (key === null || key === undefined || key === '') return;
  tally[key] = (tally[key] ?? 0) + 1;
};

/** Provider provenance per model, from the replies the endpoint sent (cache hits carry no headers and are skipped). */
export function provenanceOf(replies: Iterable<RecordedReply>): ModelProvenance[] {
  const byModel = new Map<string, ModelProvenance>();
  for (const { model, reply, reused } of replies) {
    if (reused || reply.cached) continue;
    const entry = byModel.get(model) ?? {
      model,
      responseModels: {},
      systemFingerprints: {},
      litellmVersions: {},
      modelGroups: {},
      modelIds: {},
      fallbacks: 0,
      requested: {},
      sent: {},
      warnings: [],
    };
    byModel.set(model, entry);
    bump(entry.responseModels, reply.responseModel);
    bump(entry.systemFingerprints, reply.systemFingerprint);
    bump(entry.litellmVersions, reply.headers['x-litellm-version']);
    bump(entry.modelGroups, reply.headers['x-litellm-model-group']);
    bump(entry.modelIds, reply.headers['x-litellm-model-id']);
    if (Number(reply.headers['x-litellm-attempted-fallbacks'] ?? 0) > 0) entry.fallbacks += 1;
    bump(entry.requested, canonical(reply.requested));
    bump(entry.sent, canonical(reply.sent));
  }
  for (const entry of byModel.values()) {
    const served = Object.keys(entry.responseModels);
    if (served.length > 1) entry.warnings.push(`alias drift: ${entry.model} was answered by ${served.join(', ')}`);
    if (entry.fallbacks > 0)
      entry.warnings.push(
        `${entry.fallbacks} repl${entry.fallbacks === 1 ? 'y' : 'ies'} of ${entry.model} came through a proxy fallback (another model answered)`,
      );
    if (Object.keys(entry.sent).some((sent) => !(sent in entry.requested)))
      entry.warnings.push(
        `${entry.model}: parameters sent differ from those requested (${Object.keys(entry.sent).join(' | ')})`,
      );
  }
  return [...byModel.values()];
}

function canonical(value: object): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))));
}
