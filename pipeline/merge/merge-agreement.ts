// What the shards of one run must agree on before `pnpm merge` puts them together: the spec, the scenarios, the
// prompts, the code and packages, and what their setup phases read from the memory systems.
import { evalPhaseOf } from '../suites/eval-phases.js';
import { probeIdOf, type ProbeRecord } from '../run-log/run-log.js';
import type { ShardRun } from './shard-run.js';

/** The last row of each probe in a shard's `setup.jsonl` (a retried probe's error is superseded). */
export function lastProbes(shard: Pick<ShardRun, 'probes'>): Map<string, ProbeRecord> {
  return new Map(shard.probes.map((probe) => [probeIdOf(probe.system, probe.mode, probe.scenario), probe]));
}

/** The manifest fields that must be equal in every shard, each as a comparable string. */
const AGREED: Record<string, (shard: ShardRun) => unknown> = {
  'spec hash': (s) => s.manifest.specHash,
  'scenario hashes': (s) => s.manifest.scenarios,
  'code revision': (s) => s.manifest.revision,
  'prompt hashes': (s) => s.manifest.prompts ?? null,
  'package versions': (s) => s.manifest.packages,
  'decision models': (s) => s.manifest.models.map((m) => ({ id: m.id, kind: m.kind, simulated: m.simulated })),
};

/** Short form of a value for a problem line. */
function brief(value: unknown): string {
  if (typeof value === 'string') return value.length > 16 ? value.slice(0, 12) : value;
  if (value && typeof value === 'object' && 'commit' in value) {
    const { commit, dirty } = value as { commit: string | null; dirty: boolean | null };
    return `${commit?.slice(0, 12) ?? 'no commit'}${dirty ? ' + uncommitted changes' : ''}`;
  }
  return 'different content';
}

/** Each agreed field of every shard against the first shard, one problem per field and shard that differ. */
export function agreementProblems(shards: readonly ShardRun[]): string[] {
  const [reference, ...others] = shards;
  const problems: string[] = [];
  // A phase that refuses `--shard` (every one but the grid) has no shards to merge.
  for (const shard of shards)
    if (evalPhaseOf(shard.manifest.spec.experiment).refuses.shard)
      problems.push(`${shard.dir}: experiment ${shard.manifest.spec.experiment}; only grid shards are merged`);
  for (const shard of others)
    for (const [field, of] of Object.entries(AGREED)) {
      const mine = of(shard);
      const theirs = of(reference!);
      if (JSON.stringify(mine) !== JSON.stringify(theirs))
        problems.push(
          `${field} differ: ${shard.dir} has ${brief(mine)}, ${reference!.dir} has ${brief(theirs)} (not shards of one run)`,
        );
    }
  return problems;
}

/**
 * What a probe contributes to the results: its status, the texts and labels of both reads, exposure, the guard's
 * withheld texts. Timestamps are left out (each shard seeds at its own time).
 */
function probeEssence(probe: ProbeRecord): string {
  const texts = (records: readonly { text: string }[] | null | undefined) => records?.map((r) => r.text) ?? null;
  return JSON.stringify([
    probe.status,
    probe.reason ?? null,
    probe.extractor ?? null,
    probe.stored ?? null,
    texts(probe.defaultRead),
    texts(probe.filteredRead),
    probe.defaultLabels ?? null,
    probe.filteredLabels ?? null,
    probe.exposure ?? null,
    probe.guard?.withheldTexts ?? null,
  ]);
}

/**
 * Every shard ran the setup phase itself; a merge is one run only when they all read the same from the memory
 * systems. A probe that differs (or is missing) is named with the directories whose reads disagree.
 */
export function probeProblems(shards: readonly ShardRun[]): string[] {
  const [reference, ...others] = shards;
  const expected = lastProbes(reference!);
  const problems: string[] = [];
  for (const shard of others) {
    const mine = lastProbes(shard);
    const differing = [...new Set([...expected.keys(), ...mine.keys()])].filter((id) => {
      const theirs = expected.get(id);
      const own = mine.get(id);
      return !theirs || !own || probeEssence(theirs) !== probeEssence(own);
    });
    if (differing.length > 0)
      problems.push(
        `setup differs: ${shard.dir} and ${reference!.dir} read differently for ${differing.length} probe(s): ${differing.slice(0, 5).join(', ')}${differing.length > 5 ? ', …' : ''} (a non-deterministic system or extraction model; run the grid as one process)`,
      );
  }
  return problems;
}
