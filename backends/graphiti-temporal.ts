// Graphiti's date rule for future-tense facts (graphiti-core 0.31.2, utils/maintenance/temporal_edge_utils.py).

const FUTURE_WORDS = [
  'will',
  'shall',
  'is going to',
  'are going to',
  'going to',
  'plans? to',
  'planned to',
  'planning to',
  'intends? to',
  'intended to',
  'expects? to',
  'expected to',
  'promises? to',
  'promised to',
  'scheduled to',
  'is scheduled to',
  'are scheduled to',
  'set to',
  'aims? to',
  'aimed to',
  'committed to',
];
const FUTURE_ASSERTION = new RegExp(`\\b(?:${FUTURE_WORDS.join('|')})\\b|[a-z]+'ll\\b`, 'i');
const DEADLINE = /\b(?:by|before|no later than|deadline|due by|due on)\b/i;
const ONGOING_STATE_END =
  /\b(?:until|through|thru|expires?|expired|ends?|ended|ending|stops?|stopped|ceases?|ceased|no longer)\b/i;

/**
 * `normalize_future_temporal_bounds`: for a planned or promised fact ("will", "shall", "plans to", "'ll", ...) the
 * fact becomes valid at the statement's reference time, not at the future date, and a soft deadline ("by Friday")
 * is not an end of validity. Other facts keep their dates. Applied to every extracted edge, as extract_edges does.
 *
 * @example
 * normalizeFutureTemporalBounds('Deploys shall need two approvals.', now, nextYear, null); // { validAt: now, invalidAt: null }
 */
export function normalizeFutureTemporalBounds(
  fact: string,
  referenceTime: Date | null,
  validAt: Date | null,
  invalidAt: Date | null,
): { validAt: Date | null; invalidAt: Date | null } {
  if (referenceTime === null || !FUTURE_ASSERTION.test(fact)) return { validAt, invalidAt };
  const valid = validAt === null || validAt > referenceTime ? referenceTime : validAt;
  const softDeadline =
    invalidAt !== null && invalidAt > referenceTime && DEADLINE.test(fact) && !ONGOING_STATE_END.test(fact);
  return { validAt: valid, invalidAt: softDeadline ? null : invalidAt };
}
