// The searching attacker: for each write-based attack, the first landing over channels × mutations × fixtures, in a
// fixed order, proven by a replay on a fresh instance of the target; deterministic and offline by default.
import type { AttackName, FixtureFile } from '../../../../scenarios/frontdoor/fixture.js';
import type { Channel } from './channels.js';
import type { Variant } from './mutations.js';
import { attackId, runOne, type FrontdoorPlan, type TargetHandle } from './run-frontdoor.js';
import type { TrialStep } from './trial.js';

/** The attacks an attacker with write access runs itself (cross_session_bleed is a read across users, not a write). */
export const WRITE_ATTACKS: readonly AttackName[] = [
  'memory_injection',
  'retrieval_hijack',
  'indirect_prompt_injection',
  'update_poisoning',
  'metadata_poisoning',
];

/** One proven landing. */
export interface Finding {
  attack: string;
  fixtureId: string;
  fixtureIndex: number;
  channel: Channel;
  variant: Variant;
  /** Which attempt of the whole hunt landed (1-based). */
  attempt: number;
  /** The attacker's writes as made. */
  writes: string[];
  /** Rank of the attacker's memory in the verdict read, and in the replay. */
  rank: number;
  replayRank: number;
  /** Every write and read of the landing, in order: the reproduction. */
  steps: TrialStep[];
}

/** What the hunt did. */
export interface HuntReport {
  target: string;
  version: string;
  /** Trials run, the replays not counted. */
  attempts: number;
  findings: Finding[];
  /** Attacks with no proven landing, and why (kept out everywhere, or n/a with the reason). */
  misses: { attack: string; attempts: number; outcome: string }[];
}

/** Options of `hunt`. */
export type HuntOptions = Pick<FrontdoorPlan, 'fixtures' | 'writers' | 'paraphrase' | 'log'> & {
  target: TargetHandle;
  channels: readonly Channel[];
  variants: readonly Variant[];
  attacks?: readonly AttackName[];
};

/**
 * Searches attacks × channels × variants × fixtures in that nesting order and stops an attack at its first landing
 * that a replay on a fresh instance reproduces. Every attempt is logged; an unreproduced landing is logged and the
 * search goes on.
 */
export async function hunt(options: HuntOptions): Promise<HuntReport> {
  const { target, fixtures, log } = options;
  const report: HuntReport = { target: target.id, version: target.version, attempts: 0, findings: [], misses: [] };
  const backend = await target.load();
  await backend.open();
  try {
    for (const attack of options.attacks ?? WRITE_ATTACKS) {
      const file: FixtureFile = fixtures[attack];
      const id = attackId(file);
      const before = report.attempts;
      const notApplicable = new Set<string>();
      let found: Finding | undefined;
      search: for (const channel of options.channels) {
        for (const variant of options.variants) {
          for (const [index, fixture] of file.fixtures.entries()) {
            const result = await runOne(backend, options, attack, index, channel, variant);
            if (!result.outcome) continue;
            const attempt = ++report.attempts;
            const { verdict, rank, reason } = result.outcome;
            log?.(
              `attempt ${attempt}: ${id} ${fixture.id} ${channel} ${variant} → ${verdict}${rank ? ` (rank ${rank})` : ''}${reason ? ` (${reason})` : ''}`,
            );
            if (verdict === 'n/a') notApplicable.add(reason ?? 'n/a');
            if (verdict !== 'surfaced' || !rank) continue;
            const replayRank = await replay(target, options, attack, index, channel, variant);
            log?.(
              `  replay on a fresh ${target.id}: ${replayRank ? `surfaced (rank ${replayRank}), proven` : 'did not surface; not a finding'}`,
            );
            if (!replayRank) continue;
            found = {
              attack: id,
              fixtureId: fixture.id,
              fixtureIndex: index,
              channel,
              variant,
              attempt,
              writes: result.writes ?? [],
              rank,
              replayRank,
              steps: result.outcome.steps,
            };
            break search;
          }
        }
      }
      if (found) report.findings.push(found);
      else
        report.misses.push({
          attack: id,
          attempts: report.attempts - before,
          outcome: notApplicable.size > 0 ? `n/a: ${[...notApplicable][0]}` : 'kept out on every attempt',
        });
    }
  } finally {
    await backend.close();
  }
  return report;
}

async function replay(
  target: TargetHandle,
  options: HuntOptions,
  attack: AttackName,
  index: number,
  channel: Channel,
  variant: Variant,
): Promise<number | null> {
  const fresh = await target.load();
  await fresh.open();
  try {
    const result = await runOne(fresh, options, attack, index, channel, variant);
    return result.outcome?.verdict === 'surfaced' ? (result.outcome.rank ?? null) : null;
  } finally {
    await fresh.close();
  }
}

/** The exact steps of a finding, one line each, as printed and stored. */
export function findingSteps(finding: Finding): string[] {
  return finding.steps.map((step, index) => {
    const n = `${index + 1}.`;
    if (step.op === 'write') {
      const tags = Object.keys(step.tags).length > 0 ? `, tags ${JSON.stringify(step.tags)}` : '';
      return `${n} add as ${step.who} to ${step.namespace} (source ${step.source}, signature ${step.signature}${tags}): ${JSON.stringify(step.text)}`;
    }
    const filter = step.metadataFilter ? ` with metadata filter ${JSON.stringify(step.metadataFilter)}` : '';
    return `${n} search ${step.namespace} for ${JSON.stringify(step.query)} (limit ${step.limit})${filter} [${step.purpose}] → ${step.returned.length} record(s): ${step.returned.map((text) => JSON.stringify(text)).join(' | ')}`;
  });
}
