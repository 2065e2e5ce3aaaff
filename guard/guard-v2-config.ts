// guard-v2 configuration: the subject thresholds plus the reference guard's stage-1 switch, cap and annotation.
import { z } from 'zod';
import { mergeGuardSettings } from './guard-config.js';

/** guard-v2's settings. Defaults were fixed on the paper pairs and the neutral corpus (data/guard-v2/). */
export interface GuardV2Config {
  /** Minimum containment of content lemmas for "same subject" (default 0.3; the reference's α is 0.45 on raw words). */
  subjectOverlap: number;
  /** With an embedder: cosine similarity that also counts as "same subject" (default 0.8). */
  embeddingSimilarity: number;
  /** Stage 1 as in the reference: withhold records whose backend set a revocation field. Default true. */
  trustExplicitFields: boolean;
  /** At most floor(N·β) of the N input records are withheld in total (default 0.6, as the reference). */
  maxWithheldRatio: number;
  /** Append the summary note when anything was withheld. Default true. */
  annotate: boolean;
}

/** The defaults. */
export const DEFAULT_GUARD_V2_CONFIG: Readonly<GuardV2Config> = Object.freeze({
  subjectOverlap: 0.3,
  embeddingSimilarity: 0.8,
  trustExplicitFields: true,
  maxWithheldRatio: 0.6,
  annotate: true,
});

const ratio = z.number().min(0).max(1);

/** Schema of a partial configuration: ratios in [0, 1], no unknown keys. */
const guardV2ConfigSchema = z
  .object({
    subjectOverlap: ratio,
    embeddingSimilarity: ratio,
    trustExplicitFields: z.boolean(),
    maxWithheldRatio: ratio,
    annotate: z.boolean(),
  })
  .partial()
  .strict();

/** Merges a partial configuration over the defaults; throws `InvalidInputError` listing every bad field. */
export function resolveGuardV2Config(config: unknown = {}, source = 'guard-v2 settings'): GuardV2Config {
  return mergeGuardSettings<GuardV2Config>(guardV2ConfigSchema, DEFAULT_GUARD_V2_CONFIG, config, source);
}
