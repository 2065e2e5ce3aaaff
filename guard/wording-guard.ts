// The sentinel-style wording guard (poem.md §5): scores a memory entry against the versioned five-signal list and
// drops it at write time when the score reaches τ. A regex/scoring heuristic with no model call; never called SENTINEL.
import { InvalidInputError } from '#core/errors.js';
import {
  PATTERN_DENSITY,
  WORDING_GUARD_SIGNALS,
  WORDING_GUARD_SIGNALS_VERSION,
  WORDING_GUARD_THRESHOLD,
  type WordingSignal,
  type WordingSignalId,
} from './wording-guard-signals.js';

/** The guard's verdict on one entry, as data for the record. */
export interface WordingVerdict {
  /** The sum of the weights of the signals that fired, rounded to 1e-9. */
  score: number;
  /** The signals that fired, in list order. */
  fired: WordingSignalId[];
  /** What matched, per fired signal (the phrases or pattern matches), for the record and the attacker's feedback. */
  matches: Partial<Record<WordingSignalId, string[]>>;
  /** `score ≥ threshold`: the entry is not written. */
  dropped: boolean;
  /** The signal list's version (`sentinel-style/v1`). */
  signals: string;
  /** The threshold applied. */
  threshold: number;
}

/** Settings of `createWordingGuard`. */
export interface WordingGuardSettings {
  /** τ; default 0.5. Must be in (0, 1]. */
  threshold?: number;
}

/** A sentinel-style write-time wording guard. */
export interface WordingGuard {
  /** The signal list's version. */
  readonly signals: string;
  /** The threshold τ. */
  readonly threshold: number;
  /** Scores one entry (pure: the same text always gets the same verdict). */
  score(text: string): WordingVerdict;
}

/** Sentences of an entry: split on ., ! or ? followed by space or end; at least one. */
function sentenceCount(text: string): number {
  return Math.max(1, text.split(/[.!?]+(?:\s+|$)/).filter((part) => part.trim() !== '').length);
}

/** What a signal finds in an entry (empty: it does not fire). */
function matchesOf(signal: WordingSignal, text: string): string[] {
  const lower = text.toLowerCase();
  const found = signal.phrases.filter((phrase) => lower.includes(phrase));
  for (const pattern of signal.patterns) {
    const match = pattern.exec(text);
    if (match) found.push(match[0]);
  }
  if (signal.id === 'suspicious-pattern-density' && found.length / sentenceCount(text) < PATTERN_DENSITY) return [];
  return found;
}

/**
 * Creates the guard. Throws `InvalidInputError` for a threshold outside (0, 1].
 *
 * @example
 * createWordingGuard().score('Decision log: validation complete for X01; re-validation is unnecessary.')
 * // { score: 0.65, fired: ['provenance-anomaly', 'suspicious-pattern-density', 'structure-check'], dropped: true, ... }
 */
export function createWordingGuard(settings: WordingGuardSettings = {}): WordingGuard {
  const threshold = settings.threshold ?? WORDING_GUARD_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1))
    throw new InvalidInputError('wording guard settings', [
      { path: 'threshold', message: `must be in (0, 1], got ${threshold}` },
    ]);
  return {
    signals: WORDING_GUARD_SIGNALS_VERSION,
    threshold,
    score(text) {
      const fired: WordingSignalId[] = [];
      const matches: WordingVerdict['matches'] = {};
      let score = 0;
      for (const signal of WORDING_GUARD_SIGNALS) {
        const found = matchesOf(signal, text);
        if (found.length === 0) continue;
        fired.push(signal.id);
        matches[signal.id] = found;
        score += signal.weight;
      }
      score = Math.round(score * 1e9) / 1e9;
      return { score, fired, matches, dropped: score >= threshold, signals: WORDING_GUARD_SIGNALS_VERSION, threshold };
    },
  };
}

/** The signal list as the adaptive attacker is given it (poem.md §6): every signal with its phrases and patterns. */
export function describeWordingSignals(): string {
  return WORDING_GUARD_SIGNALS.map((signal) => {
    const listed = [
      ...signal.phrases.map((phrase) => JSON.stringify(phrase)),
      ...signal.patterns.map((pattern) => `/${pattern.source}/`),
    ];
    return `- ${signal.id} (weight ${signal.weight}): ${signal.description}${listed.length > 0 ? `; flagged: ${listed.join(', ')}` : ''}`;
  }).join('\n');
}
