// Exposure labelling: is a returned record the revoked policy? (stale-retrieval.md §7.2, §7.1). Scenario semantics,
// used by setup (labels), the simulator and rescore alike, so it lives beside the scenarios, below pipeline/ and analysis/.
import type { MemoryRecord } from '../../../backends/memory-backend.js';
import type { Scenario } from '../../../scenarios/scenario.js';

/** How a system's records are labelled (the `exposure` entry of a backend description). */
export type ExposureRule = { rule: 'status'; field: string } | { rule: 'lexical' };

/** Whether a default read exposed the revoked policy, and where. */
export interface Exposure {
  /** True iff any returned record is labelled revoked (the paper's ER, the code's R-ASR). */
  exposed: boolean;
  /** 1-based position of the first revoked record, or null when none is. */
  revokedRank: number | null;
}

/** Minimum share of v1's content words the fact must contain. */
const MIN_REVOKED_OVERLAP = 0.3;
/** Minimum lead of the v1 overlap over the v2 overlap. */
const MIN_MARGIN = 0.15;

// Stop set of core/situations.py::_content_tokens, verbatim.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'this that with from they have been were which their there when what shall must will standard ' +
    'policy approved requires require states issued governs'
  ).split(' '),
);

/**
 * Content words as the reference code defines them: lowercase, runs of `[a-z0-9]`, longer than three
 * characters, not a stop word; a set. No stemming, although the paper says "stemmed" (§16 item 1).
 */
export function contentTokens(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return new Set(words.filter((word) => word.length > 3 && !STOP_WORDS.has(word)));
}

/** |a ∩ b| / |b|, 0 when b is empty. */
function overlap(fact: ReadonlySet<string>, reference: ReadonlySet<string>): number {
  if (reference.size === 0) return 0;
  let shared = 0;
  for (const token of reference) if (fact.has(token)) shared += 1;
  return shared / reference.size;
}

/**
 * The lexical rule of `core/situations.py::asserts_revoked`: true iff the fact shares at least 30 % of
 * v1's content words and that share exceeds its share of v2's by at least 0.15.
 *
 * The comparison is done on doubles exactly as Python does it, with no epsilon: JavaScript numbers are
 * the same IEEE-754 doubles and `/` and `-` round identically, so e.g. s1 = 7/20, s2 = 4/20 gives
 * 0.14999999999999997 and is *not* revoked in either language. Do not "fix" this with a tolerance.
 */
export function assertsRevoked(fact: string, v1: string, v2: string): boolean {
  const factTokens = contentTokens(fact);
  if (factTokens.size === 0) return false;
  const s1 = overlap(factTokens, contentTokens(v1));
  const s2 = overlap(factTokens, contentTokens(v2));
  return s1 >= MIN_REVOKED_OVERLAP && s1 - s2 >= MIN_MARGIN;
}

/**
 * Labels each record revoked (true) or not, in the order given.
 * `status`: the record exposes the revocation field with a value (present = not null, undefined or
 * ''; `false` and `0` count as present). `lexical`: `assertsRevoked(text, v1, v2)`.
 */
export function labelRecords(
  records: readonly MemoryRecord[],
  rule: ExposureRule,
  scenario: Pick<Scenario, 'v1' | 'v2'>,
): boolean[] {
  if (rule.rule === 'status') {
    return records.map((record) => {
      const value = Object.hasOwn(record.fields, rule.field) ? record.fields[rule.field] : undefined;
      return value !== undefined && value !== null && value !== '';
    });
  }
  return records.map((record) => assertsRevoked(record.text, scenario.v1, scenario.v2));
}

/** Exposure of one read from its labels: any revoked record, and the 1-based rank of the first. */
export function exposureOf(labels: readonly boolean[]): Exposure {
  const index = labels.indexOf(true);
  return index === -1 ? { exposed: false, revokedRank: null } : { exposed: true, revokedRank: index + 1 };
}
