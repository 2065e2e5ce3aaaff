// guard-v2 (issue #19 item 3) as a defence: the opt-in `guard-v2` arm. The reference port stays the `guard` arm.
import { resolveGuardV2Config } from '../../guard/guard-v2-config.js';
import { memoryRecordToGuardInput } from '../../guard/stale-retrieval-guard.js';
import { applyGuardV2 } from '../../guard/stale-retrieval-guard-v2.js';
import type { DefenceV1, ScreenInput, ScreenVerdict } from './defence-v1.js';
import { guardScreenVerdict } from './stale-guard.js';

/**
 * Creates guard-v2's screen with `settings` (any subset of `GuardV2Config`; validated). A screen is synchronous and
 * pure (rescore re-applies it offline), so the grid's guard-v2 uses the lexical subject test; the embedder is used
 * where a caller awaits the guard (`createGuardV2`, `stalebench/guard`, `pnpm guard:mcp`).
 */
function create(settings: unknown = {}) {
  // Frozen: guard-v2 validates a frozen configuration once, not on every read.
  const config = Object.freeze(resolveGuardV2Config(settings));
  return {
    screen({ records, now }: ScreenInput): ScreenVerdict {
      return guardScreenVerdict(applyGuardV2(records.map(memoryRecordToGuardInput), config, now));
    },
  };
}

/** Stage 1 as the reference; stage 2 with lemmas, negation scope, modality, quantities and a versioned lexicon. */
export const guardV2Defence = {
  specificationVersion: 'v1',
  id: 'guard-v2',
  label: 'stale guard v2',
  // Not an arm of the reference code: `guard_v2` names this project's own arm in run logs and reports.
  arm: { referenceName: 'guard_v2' },
  uses: [],
  create,
} as const satisfies DefenceV1;
