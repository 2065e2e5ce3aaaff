// The run kinds analysis/ knows, one line per kind (each kind's file sits next to its analysis code), and the one
// lookup every command uses: a run's kind is its manifest's `suite`, else `spec.experiment` (`grid` when absent).
import { UnknownComponentError } from '#core/errors.js';
import { followUpRunKinds } from '../follow-ups/run-kind.js';
import { forgedReasoningRunKind } from '../forged-reasoning/run-kind.js';
import { frontdoorRunKind } from '../frontdoor/run-kind.js';
import { gridRunKind } from '../grid/run-kind.js';
import { integrityRunKind } from '../integrity/run-kind.js';
import type { RunKindV1 } from './run-kind-v1.js';

export type { RunKindReport, RunKindRescore, RunKindV1 } from './run-kind-v1.js';

/** Every registered run kind, in report order. */
export const RUN_KINDS: readonly RunKindV1[] = [
  gridRunKind,
  ...followUpRunKinds,
  forgedReasoningRunKind,
  integrityRunKind,
  frontdoorRunKind,
];

/** The kind id a manifest claims: its `suite` (a suite run), else `spec.experiment`, else `grid` (runs before kinds). */
export function runKindIdOf(manifest: { suite?: unknown; spec?: { experiment?: unknown } }): string {
  if (typeof manifest.suite === 'string') return manifest.suite;
  return String(manifest.spec?.experiment ?? 'grid');
}

/** The registered kind `id`, or undefined (the viewer shows such a run's stored lines as they are). */
export function findRunKind(id: string): RunKindV1 | undefined {
  return RUN_KINDS.find((kind) => kind.id === id);
}

/** The registered kind `id`; throws `UnknownComponentError` naming it and every registered kind. */
function runKind(id: string): RunKindV1 {
  const kind = findRunKind(id);
  if (!kind)
    throw new UnknownComponentError(
      'run kind',
      id,
      RUN_KINDS.map((k) => k.id),
    );
  return kind;
}

/** The kind of a run's manifest (`runKind(runKindIdOf(manifest))`). */
export function runKindOf(manifest: { suite?: unknown; spec?: { experiment?: unknown } }): RunKindV1 {
  return runKind(runKindIdOf(manifest));
}
