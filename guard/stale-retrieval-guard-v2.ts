// guard-v2: the reference guard's stage 1 and ordering with a stronger conflict stage (issue #19 item 3). Opt-in.
import type { MemoryRecord } from '../backends/memory-backend.js';
import type { Embedder } from '../backends/embedder.js';
import { claimOf, type Claim } from './claim.js';
import { textsThatMayPair } from './claim-pairing.js';
import { shippedLexicon } from './conflict-lexicon.js';
import { conflictV2 } from './conflict-v2.js';
import { resolveGuardV2Config, type GuardV2Config } from './guard-v2-config.js';
import {
  emptyFieldSlots,
  fillFieldSlots,
  isGuardMap,
  revocationOf,
  textOf,
  timeOf,
  type GuardInput,
} from './guard-record.js';
import type { ReadGuard, WithheldRecord } from './read-guard.js';
import { memoryRecordToGuardInput, unresolvedConflictNote, type GuardResult } from './stale-retrieval-guard.js';

/** Cosine similarity of records `i` and `j` of one input (from the embedder), or null when there is none. */
export type SubjectSimilarity = (i: number, j: number) => number | null;

/** Frozen configurations already validated: a screen's config is checked once, not on every retrieval. */
const RESOLVED = new WeakMap<object, GuardV2Config>();
function resolvedOnce(config: Partial<GuardV2Config>): GuardV2Config {
  if (!Object.isFrozen(config)) return resolveGuardV2Config(config);
  let resolved = RESOLVED.get(config);
  if (!resolved) {
    resolved = resolveGuardV2Config(config);
    RESOLVED.set(config, resolved);
  }
  return resolved;
}

/**
 * Runs guard-v2 on one retrieval result: stage 1 exactly as the reference (§10.4), then stage 2 with the reference's
 * ordering and cap (§10.8: newest first, ⊥ last, only the first conflicting kept record counts, at most floor(N·β)
 * withheld) but `conflictV2` as the test. Records are never modified; `kept` is in the input order.
 *
 * @example
 * applyGuardV2([{ fact: v1, created_at: '2024-01-01' }, { fact: v2, created_at: '2026-01-01' }]).withheld[0].reason
 * // 'superseded: "delete" asserted and negated (subject overlap 0.43)'
 */
export function applyGuardV2(
  records: readonly GuardInput[],
  config: Partial<GuardV2Config> = {},
  now: Date = new Date(),
  similarity: SubjectSimilarity = noSimilarity,
): GuardResult {
  const settings = resolvedOnce(config);
  const lexicon = shippedLexicon();
  const withheld: WithheldRecord[] = [];
  const notes: string[] = [];
  const survivors: Survivor[] = [];
  // One record's revocation and time fields, read once for both (what explicitRevocation and timestampOf read).
  const slots = emptyFieldSlots();
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index]!;
    const text = textOf(record);
    const map = isGuardMap(record);
    if (map) fillFieldSlots(record, slots);
    const marked = settings.trustExplicitFields && map ? revocationOf(slots, now) : null;
    if (marked) withheld.push({ index, text, reason: `backend marked ${marked}`, stage: 'explicit' });
    else survivors.push({ index, record, text, time: map ? timeOf(slots) : null, claim: null });
  }
  // Only texts that may pair are parsed: the parse is most of guard-v2's cost on texts new to the process.
  const mayPair = textsThatMayPair(
    survivors.map(({ text }) => text),
    lexicon,
  );
  for (const survivor of survivors) if (mayPair.has(survivor.text)) survivor.claim = claimOf(survivor.text, lexicon);
  const order = survivors.sort(newestFirst);
  const maxWithheld = Math.trunc(records.length * settings.maxWithheldRatio);
  const kept: Survivor[] = [];
  for (const candidate of order) {
    let superseding: { reason: string; text: string } | null = null;
    const claim = candidate.claim;
    for (let at = 0; claim !== null && at < kept.length; at += 1) {
      const keeper = kept[at]!;
      if (keeper.claim === null) continue;
      const outcome = conflictV2(claim, keeper.claim, lexicon, settings, similarity(candidate.index, keeper.index));
      if (!outcome.hit) continue;
      if (candidate.time !== null && keeper.time !== null && candidate.time < keeper.time)
        superseding = { reason: outcome.reason, text: keeper.text };
      else notes.push(unresolvedConflictNote(outcome.reason));
      break;
    }
    if (superseding && withheld.length < maxWithheld) {
      withheld.push({
        index: candidate.index,
        text: candidate.text,
        reason: `superseded: ${superseding.reason}`,
        stage: 'conflict',
        supersededBy: superseding.text,
      });
    } else kept.push(candidate);
  }
  kept.sort(byIndex);
  const keptInOrder = kept.map(({ index, record }) => ({ index, record }));
  if (settings.annotate && withheld.length > 0)
    notes.push(
      `${withheld.length} of ${records.length} retrieved facts withheld as superseded or revoked; they remain in the store and are listed in \`withheld\`.`,
    );
  return { kept: keptInOrder, withheld, notes, texts: kept.map(({ text }) => text) };
}

/** A record past stage 1, with its text, τ and claim (null: its text pairs with no other, see textsThatMayPair). */
interface Survivor {
  index: number;
  record: GuardInput;
  text: string;
  time: number | null;
  claim: Claim | null;
}

/** No embedder: no similarity for any pair (a module function, not a default closure made per call). */
function noSimilarity(): null {
  return null;
}

/** Stage 2's order (a stable sort): newest first where τ is known, ⊥ last. */
function newestFirst(a: Survivor, b: Survivor): number {
  if (a.time === null || b.time === null) return (a.time === null ? 1 : 0) - (b.time === null ? 1 : 0);
  return b.time - a.time;
}

/** Input order. */
function byIndex(a: Survivor, b: Survivor): number {
  return a.index - b.index;
}

function cosine(a: readonly number[], b: readonly number[]): number | null {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * (b[i] ?? 0);
    normA += a[i]! ** 2;
    normB += (b[i] ?? 0) ** 2;
  }
  return normA === 0 || normB === 0 ? null : dot / Math.sqrt(normA * normB);
}

/** Embeds the texts once and returns their pairwise cosine similarity. */
export async function embeddingSimilarity(embedder: Embedder, texts: readonly string[]): Promise<SubjectSimilarity> {
  const vectors = texts.length === 0 ? [] : await embedder.embed(texts);
  if (vectors.length !== texts.length)
    throw new RangeError(`embedder ${embedder.id} returned ${vectors.length} vectors for ${texts.length} texts`);
  return (i, j) => (vectors[i] && vectors[j] ? cosine(vectors[i], vectors[j]) : null);
}

/** Settings of `createGuardV2`: any subset of `GuardV2Config`, and the embedder for subject similarity. */
export interface GuardV2Settings extends Partial<GuardV2Config> {
  /** The configured embedder; absent: the subject test is lexical only. */
  embedder?: Embedder;
}

/** A guard-v2 instance; `config` is the resolved configuration and `lexiconVersion` the lexicon in use. */
export interface GuardV2 extends ReadGuard {
  /** Registry id. */
  readonly id: 'stale-retrieval-v2';
  /** The configuration in effect (defaults filled in). */
  readonly config: Readonly<GuardV2Config>;
  /** The lexicon file's version (`guard-v2-lexicon/<n>`). */
  readonly lexiconVersion: string;
}

/**
 * Creates guard-v2 as a read guard: one search, then `applyGuardV2` on its records, with the embedder's similarity
 * when one is given. Throws `InvalidInputError` for invalid settings.
 *
 * @example
 * const guard = createGuardV2({ embedder });
 * const { kept, withheld } = await guard.wrapSearch({ request, search: (r) => backend.search(r), context: { now } });
 */
export function createGuardV2(settings: GuardV2Settings = {}): GuardV2 {
  const { embedder, ...rest } = settings;
  const config = Object.freeze(resolveGuardV2Config(rest));
  return {
    id: 'stale-retrieval-v2',
    config,
    get lexiconVersion() {
      return shippedLexicon().version;
    },
    async wrapSearch({ request, search, context }) {
      const result = await search(request);
      const inputs = result.records.map(memoryRecordToGuardInput);
      const similarity = embedder ? await embeddingSimilarity(embedder, inputs.map(textOf)) : undefined;
      const verdict = applyGuardV2(inputs, config, context.now, similarity);
      const kept = verdict.kept.map(({ index }) => ({ index, record: result.records[index] as MemoryRecord }));
      return { kept, withheld: verdict.withheld, notes: verdict.notes, warnings: result.warnings };
    },
  };
}
