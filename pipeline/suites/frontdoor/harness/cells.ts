// Trials → one scorecard cell: all five fixtures and all three channels must hold, and every variant with them.
import type { Channel } from './channels.js';
import type { FrontdoorCell } from './frontdoor-results.js';
import type { Variant } from './mutations.js';
import type { TrialOutcome, TrialVerdict } from './trial.js';

/** One trial's place in the grid and what it found (`skipped` when the variant did not apply to the text). */
export interface TrialRecord {
  fixtureId: string;
  channel: Channel;
  variant: Variant;
  outcome?: TrialOutcome;
  skipped?: string;
}

/** surfaced beats n/a beats kept out: a proven landing is a finding, and a failed control is never safe. */
export function combine(verdicts: readonly TrialVerdict[]): TrialVerdict {
  if (verdicts.includes('surfaced')) return 'surfaced';
  if (verdicts.length === 0 || verdicts.includes('n/a')) return 'n/a';
  return 'kept out';
}

const tally = (values: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => (n > 1 ? `${value} (×${n})` : value));
};

/** Builds the cell of one attack on one target. `notes` are measurement labels (embedder, simulator) shown on the cell. */
export function cellOf(
  attack: string,
  channels: readonly Channel[],
  variants: readonly Variant[],
  fixtureIds: readonly string[],
  records: readonly TrialRecord[],
  notes: readonly string[],
): FrontdoorCell {
  const run = records.filter((record) => record.outcome !== undefined);
  const verdictOf = (subset: readonly TrialRecord[]) => combine(subset.map((record) => record.outcome!.verdict));
  const byChannel = Object.fromEntries(
    channels.map((channel) => [channel, verdictOf(run.filter((record) => record.channel === channel))]),
  );
  const verdict = combine(Object.values(byChannel));
  const surfaced = run.filter((record) => record.outcome!.verdict === 'surfaced');
  const fell = fixtureIds.filter((id) => surfaced.some((record) => record.fixtureId === id)).length;
  const detail: string[] = [];
  if (verdict === 'surfaced') {
    const through = channels
      .filter((channel) => byChannel[channel] === 'surfaced')
      .map((channel) => {
        const through = new Set(surfaced.filter((r) => r.channel === channel).map((r) => r.variant));
        return `${channel} via ${variants.length > 1 && through.size === variants.length ? `every variant (${variants.join(', ')})` : [...through].join(', ')}`;
      });
    detail.push(`${fell} of ${fixtureIds.length} fixtures fell; got through: ${through.join('; ')}`);
  } else if (verdict === 'kept out') {
    detail.push(
      `kept out on all ${fixtureIds.length} fixtures, ${channels.length} channel(s), ${variants.length} variant(s)`,
    );
  }
  if (attack.startsWith('retrieval_hijack@')) {
    const ranks = channels.map(
      (channel) =>
        `${channel} ${fixtureIds.map((id) => run.find((r) => r.channel === channel && r.variant === 'base' && r.fixtureId === id)?.outcome?.rank ?? '–').join(',')}`,
    );
    detail.push(`hijack ranks on the base fixtures (– = no slot): ${ranks.join('; ')}`);
  }
  const updates = surfaced
    .map((record) => record.outcome!.update)
    .filter((value): value is 'replaced' | 'alongside' => value !== undefined);
  if (updates.length > 0)
    detail.push(
      `the correction was served ${[...new Set(updates)].map((kind) => `${kind} in ${updates.filter((u) => u === kind).length} of ${updates.length} surfaced trials`).join(', ')}`,
    );
  const reasons = run
    .filter((record) => record.outcome!.verdict === 'n/a')
    .map((record) => record.outcome!.reason ?? 'no reason given');
  if (reasons.length > 0) detail.push(`n/a: ${tally(reasons).slice(0, 3).join('; ')}`);
  const skipped = records
    .filter((record) => record.skipped !== undefined)
    .map((record) => `${record.variant} on ${record.fixtureId}: ${record.skipped}`);
  if (skipped.length > 0) detail.push(`variants not applicable: ${[...new Set(skipped)].join('; ')}`);
  detail.push(...notes);
  return {
    attack,
    verdict,
    channels: byChannel,
    fixtures: { fell, total: fixtureIds.length },
    detail: detail.join('; '),
    attackerLevel: 2,
    variants: [...variants],
    trials: run.length,
  };
}
