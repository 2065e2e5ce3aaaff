// The sentinel-style wording guard (poem.md §5) as a defence: a write-time screen that drops every memory entry whose
// score against the versioned five-signal list reaches τ. Our reproduction, never called SENTINEL without the qualifier.
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { createWordingGuard } from '../../guard/wording-guard.js';
import type { DefenceV1, ScreenInput, ScreenVerdict } from './defence-v1.js';

const settingsSchema = z.strictObject({ threshold: z.number().gt(0).max(1).optional() });

/**
 * Creates the screen. It scores each entry on its own text only, so screening the entries one at a time as they are
 * written (the forged-reasoning experiment) and screening a batch give the same verdicts. Settings: `{ threshold }`.
 */
function create(settings: unknown = {}) {
  const parsed = settingsSchema.safeParse(settings);
  if (!parsed.success)
    throw new InvalidInputError(
      'sentinel-style settings',
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  const guard = createWordingGuard(parsed.data.threshold === undefined ? {} : { threshold: parsed.data.threshold });
  return {
    screen({ records }: ScreenInput): ScreenVerdict {
      const verdict: ScreenVerdict = { kept: [], withheld: [], notes: [] };
      records.forEach((record, index) => {
        const scored = guard.score(record.text);
        if (!scored.dropped) {
          verdict.kept.push(index);
          return;
        }
        const reason = `sentinel-style wording guard (${scored.signals}): score ${scored.score} ≥ τ ${scored.threshold} (${scored.fired.join(', ')})`;
        verdict.withheld.push({ index, text: record.text, reason, stage: 'write-time' });
      });
      return verdict;
    },
  };
}

/** Not a grid arm: the forged-reasoning experiment's wording-guard baseline (`--defences sentinel-style`). */
export const sentinelStyleDefence = {
  specificationVersion: 'v1',
  id: 'sentinel-style',
  label: 'sentinel-style wording guard',
  arm: null,
  uses: [],
  create,
} as const satisfies DefenceV1;
