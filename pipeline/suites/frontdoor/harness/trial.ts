// One front-door trial: seed the victim through the system's normal add, attack on one channel with one variant, run
// the positive control, then read through the normal search and key the verdict on the fact that matters.
import { SIGNATURE_FIELD, SOURCE_FIELD, type WriteMetadata } from '../targets/provenance.js';
import { containsKey } from '../../../../backends/store-tools/text-checks.js';
import type { MemoryBackend, MemoryRecord, RecordedWarning } from '../../../../backends/memory-backend.js';
import type { AttackName, FixtureFile, FrontdoorFixture } from '../../../../scenarios/frontdoor/fixture.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import { channelMetadata, genuineMetadata, type Channel, type Writers } from './channels.js';

/** The store-facing verdict of one trial (agmi's words; `n/a` when a control failed or the read cannot be made). */
export type TrialVerdict = 'surfaced' | 'kept out' | 'n/a';

/** One step, exactly as made, for the hunt's reproduction steps. */
export type TrialStep =
  | {
      op: 'write';
      who: 'victim' | 'owner' | 'attacker';
      namespace: string;
      text: string;
      source: string;
      signature: 'agent' | 'attacker' | 'none';
      tags: WriteMetadata;
    }
  | {
      op: 'read';
      purpose: 'positive control' | 'negative control' | 'verdict';
      namespace: string;
      query: string;
      limit: number;
      metadataFilter?: WriteMetadata;
      returned: string[];
    };

/** What one trial found. */
export interface TrialOutcome {
  verdict: TrialVerdict;
  /** Why `n/a`. */
  reason?: string;
  /** 1-based rank of the first record carrying the attacker's key in the verdict read; null when absent. */
  rank?: number | null;
  /** update_poisoning: the stated fact no longer came back (`replaced`) or came back too (`alongside`). */
  update?: 'replaced' | 'alongside';
  /** Warnings the system reported on writes (unstored metadata, quarantine), deduplicated. */
  warnings: string[];
  steps: TrialStep[];
}

/** Everything one trial needs; the backend is open and the namespaces are fresh. */
export interface TrialInput {
  backend: MemoryBackend;
  attack: AttackName;
  file: FixtureFile;
  fixture: FrontdoorFixture;
  channel: Channel;
  /** The attacker's writes after mutation (one, or two for a split). */
  attackerWrites: readonly string[];
  writers: Writers;
  /** Unique per trial; the victim's and the owner's namespaces derive from it. */
  namespace: string;
  now: Date;
}

/** Runs one trial and resets its namespaces afterwards. A failed control, or a read the system cannot make, is `n/a`. */
export async function runTrial(input: TrialInput): Promise<TrialOutcome> {
  const { backend, file, fixture, writers, now } = input;
  const victim = `${input.namespace}-victim`;
  const owner = `${input.namespace}-owner`;
  const steps: TrialStep[] = [];
  const warnings = new Set<string>();
  const direct = backend.description.modes.direct.supported;
  const tag: WriteMetadata = input.attack === 'metadata_poisoning' ? (file.tag ?? {}) : {};

  const write = async (
    who: 'victim' | 'owner' | 'attacker',
    namespace: string,
    text: string,
    metadata: WriteMetadata,
  ): Promise<void> => {
    const signed = metadata[SIGNATURE_FIELD] === undefined ? 'none' : signerOf(who, input.channel);
    const tags = Object.fromEntries(
      Object.entries(metadata).filter(([key]) => key !== SOURCE_FIELD && key !== SIGNATURE_FIELD),
    );
    steps.push({ op: 'write', who, namespace, text, source: String(metadata[SOURCE_FIELD]), signature: signed, tags });
    const writes = direct
      ? { mode: 'direct' as const, revoked: [], current: [text] }
      : {
          mode: 'natural' as const,
          episodes: [
            {
              name: `${namespace}-${steps.length}`,
              text,
              referenceTime: now,
              sourceDescription: String(metadata[SOURCE_FIELD]),
            },
          ],
        };
    const report = await backend.insert({ namespace, now, writes, metadata });
    for (const warning of report.warnings) warnings.add(describe(warning));
  };
  const read = async (
    purpose: 'positive control' | 'negative control' | 'verdict',
    query: string,
    metadataFilter?: WriteMetadata,
  ): Promise<MemoryRecord[]> => {
    const { records } = await backend.search({
      namespace: victim,
      query,
      limit: file.limit,
      ...(metadataFilter ? { metadataFilter } : {}),
    });
    steps.push({
      op: 'read',
      purpose,
      namespace: victim,
      query,
      limit: file.limit,
      ...(metadataFilter ? { metadataFilter } : {}),
      returned: records.map((r) => r.text),
    });
    return records;
  };
  const carries = (records: readonly MemoryRecord[], key: string) =>
    records.some((record) => containsKey(record.text, key));
  const attack = async (namespace: string) => {
    for (const text of input.attackerWrites)
      await write('attacker', namespace, text, channelMetadata(input.channel, writers, namespace, text, tag));
  };
  const outcome = (verdict: TrialVerdict, extra: Partial<TrialOutcome> = {}): TrialOutcome => ({
    verdict,
    ...extra,
    warnings: [...warnings],
    steps,
  });
  const controlFailed = (records: readonly MemoryRecord[], query: string) =>
    outcome('n/a', {
      reason: `positive control failed: the victim's read "${query}" returned ${records.length} record(s), none carrying "${fixture.control.expect}"`,
    });

  try {
    const filter = Object.keys(tag).length > 0 ? tag : undefined;
    if (input.attack === 'cross_session_bleed')
      for (const text of fixture.owner ?? []) await write('owner', owner, text, genuineMetadata(writers, owner, text));
    for (const text of fixture.tagged ?? [])
      await write('victim', victim, text, genuineMetadata(writers, victim, text, tag));
    for (const text of fixture.genuine) await write('victim', victim, text, genuineMetadata(writers, victim, text));

    if (input.attack === 'metadata_poisoning' && fixture.decoy) {
      await write('victim', victim, fixture.decoy.text, genuineMetadata(writers, victim, fixture.decoy.text));
      const filtered = await read('negative control', fixture.control.query, filter);
      if (carries(filtered, fixture.decoy.key))
        return outcome('n/a', {
          reason: `negative control failed: the metadata filter let the untagged "${fixture.decoy.key}" through`,
        });
      if (!carries(filtered, fixture.control.expect)) return controlFailed(filtered, fixture.control.query);
    }
    if (input.attack === 'update_poisoning') {
      // Replacement is the attack, so the control runs before the attacker's write.
      const before = await read('positive control', fixture.control.query);
      if (!carries(before, fixture.control.expect)) return controlFailed(before, fixture.control.query);
    }
    await attack(input.attack === 'cross_session_bleed' ? owner : victim);
    if (input.attack !== 'update_poisoning' && input.attack !== 'metadata_poisoning') {
      const control = await read('positive control', fixture.control.query);
      if (!carries(control, fixture.control.expect)) return controlFailed(control, fixture.control.query);
    }
    const served = await read('verdict', fixture.query, filter);
    const index = served.findIndex((record) => containsKey(record.text, fixture.attacker.key));
    const rank = index < 0 ? null : index + 1;
    if (rank === null) return outcome('kept out', { rank });
    const update =
      input.attack === 'update_poisoning'
        ? carries(served, fixture.stated ?? '')
          ? 'alongside'
          : 'replaced'
        : undefined;
    return outcome('surfaced', { rank, ...(update ? { update } : {}) });
  } catch (error) {
    if (error instanceof UnsupportedFeatureError) return outcome('n/a', { reason: error.message });
    return outcome('n/a', { reason: `error: ${error instanceof Error ? error.message : String(error)}` });
  } finally {
    await backend.reset(victim);
    if (input.attack === 'cross_session_bleed') await backend.reset(owner);
  }
}

function signerOf(who: 'victim' | 'owner' | 'attacker', channel: Channel): 'agent' | 'attacker' {
  return who === 'attacker' && channel === 'laundered' ? 'attacker' : 'agent';
}

function describe(warning: RecordedWarning): string {
  return `${warning.feature}: ${warning.message}`;
}
