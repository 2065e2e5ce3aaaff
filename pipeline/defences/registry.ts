// The defences as a registry of kind `defence` (pipeline/run/registries.ts): the same lines as DEFENCES, seen through the
// shared registry interface that --help, the registry tests and spec errors walk. Nothing is registered here.
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { type ComponentRecord, defineRegistry, type Registry, type RegistryEntry } from '#core/registry.js';
import { AXES, type AxisId, axisDefenceId, axisOn } from './axes/index.js';
import { flattenDefences } from './compose.js';
import type { DefenceV1 } from './defence-v1.js';
import { DEFENCES, defenceOf, type RegisteredDefenceId } from './index.js';

/** What a defence is in `--help`: its label, and the arm or the axis that runs it. */
function summaryOf(defence: DefenceV1): string {
  const axis = AXES.find((a) => axisDefenceId(a) === defence.id)?.id;
  const runs = [defence.arm ? `arm (reference ${defence.arm.referenceName})` : null, axis ? `--${axis} on` : null]
    .filter(Boolean)
    .join('; ');
  return `${defence.label}${runs ? `: ${runs}` : ''}${defence.uses.length > 0 ? ` = ${defence.uses.join(' + ')}` : ''}`;
}

/** A defence's arguments are its settings, checked by its own `create` (the guard's `GuardConfig` subset). */
function settingsSchema(defence: DefenceV1): RegistryEntry['args'] {
  return z.record(z.string(), z.unknown()).superRefine((settings, context) => {
    try {
      defence.create(settings);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      for (const issue of error.issues)
        context.addIssue({
          code: 'custom',
          path: issue.path === '' ? [] : issue.path.split('.'),
          message: issue.message,
        });
    }
  });
}

/**
 * Every registered defence as a registry line (`summary`, `args`), in DEFENCES order.
 *
 * @example DEFENCE_REGISTRY.record('guard', { subjectOverlap: 0.3 }) // { kind: 'defence', id: 'guard', args: { subjectOverlap: 0.3 } }
 */
export const DEFENCE_REGISTRY: Registry<RegisteredDefenceId, RegistryEntry> = defineRegistry(
  'defence',
  Object.fromEntries(
    DEFENCES.map((defence) => [defence.id, { summary: summaryOf(defence), args: settingsSchema(defence) }]),
  ) as Record<RegisteredDefenceId, RegistryEntry>,
);

/**
 * The manifest records of the defences a run's units use: its arms that are registered defences (composites with
 * their parts, each once) and the axes turned on (pipeline/defences/axes), each with the settings it runs with
 * (defaults filled in).
 *
 * @example defenceRecords(['none', 'guard'], { guard: false, poem: true }).map((r) => r.id) // ['none', 'guard', 'poem']
 */
export function defenceRecords(arms: readonly string[], axes: { readonly [K in AxisId]?: boolean }): ComponentRecord[] {
  const roots = [
    ...arms.filter((arm) => DEFENCE_REGISTRY.has(arm)),
    ...AXES.filter((axis) => axisOn(axes, axis.id)).map(axisDefenceId),
  ];
  return flattenDefences(roots).map((id) => DEFENCE_REGISTRY.record(id, defenceOf(id).settingsOf?.() ?? {}));
}
