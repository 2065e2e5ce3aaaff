// Tallies of grid runs per (system, mode, arm, model, scenario) and their probes, for one group of decision models.
import { AXES, axisOn, type ProbeRecord } from '../../pipeline/index.js';
import type { LoadedRun } from '../load-run.js';
import { addTallies, EMPTY_TALLY, tallyDecisions, type UnsafeTally } from '../unsafe-counts.js';

/** Which decision models a table pools: the simulator never enters a total with a real model. */
export type ModelGroup = 'real' | 'sim';

/** A decision model of a run. */
export interface ModelInfo {
  /** The model id records carry (`key.model`). */
  id: string;
  /** Its label (`sim (simulated)` for the simulator). */
  label: string;
  /** The offline simulator. */
  simulated: boolean;
}

/** The groups the runs' models fall in, real first. */
export function modelGroupsOf(runs: readonly LoadedRun[]): ModelGroup[] {
  const models = runs.flatMap((r) => r.manifest.models);
  return (['real', 'sim'] as const).filter((group) => models.some((m) => m.simulated === (group === 'sim')));
}

const inGroup = (model: Pick<ModelInfo, 'simulated'>, group: ModelGroup | undefined) =>
  group === undefined || model.simulated === (group === 'sim');

/** One (system, mode, arm, model, scenario) tally, guard and PoEM axes off (the paper has neither). */
export interface Tally extends UnsafeTally {
  /** Memory system id. */
  system: string;
  /** `direct` or `natural`. */
  mode: string;
  /** Defence arm id. */
  arm: string;
  /** Decision model id. */
  model: string;
  /** Scenario id. */
  scenario: string;
}

/** The grid runs of one model group, tallied. */
export interface GridIndex {
  /** Every grid run given (probes are read from all of them). */
  runs: readonly LoadedRun[];
  /** The model group tallied; undefined = every model. */
  group: ModelGroup | undefined;
  /** One tally per (system, mode, arm, model, scenario), guard and PoEM axes off. */
  tallies: Tally[];
  /** The group's models, in first-seen order. */
  models: ModelInfo[];
  /** Any tallied model is the simulator. */
  simulated: boolean;
  /** Completed trials of the tallies whose reply gave no action. */
  parseFailures: number;
  /** Errored trials of the tallies. */
  errors: number;
  /** Units with the guard or PoEM axis on, left out of the tallies (they are in the defence table). */
  axisUnits: number;
}

/** Tallies the records of the group's models (all models when `group` is undefined). */
export function indexGrid(runs: readonly LoadedRun[], group?: ModelGroup): GridIndex {
  const byKey = new Map<string, Tally>();
  const models = new Map<string, ModelInfo>();
  let axisUnits = 0;
  for (const run of runs) {
    const simulated = new Map(run.manifest.models.map((m) => [m.id, m.simulated]));
    for (const model of run.manifest.models)
      if (inGroup(model, group) && !models.has(model.id))
        models.set(model.id, { id: model.id, label: model.label, simulated: model.simulated });
    for (const record of run.records.values()) {
      if (!inGroup({ simulated: simulated.get(record.key.model) ?? false }, group)) continue;
      if (AXES.some((axis) => axisOn(record.key, axis.id))) {
        axisUnits += 1;
        continue;
      }
      const { system, mode, arm, model, scenario } = record.key;
      const id = [system, mode, arm, model, scenario].join('\u0000');
      const before = byKey.get(id) ?? { system, mode, arm, model, scenario, ...EMPTY_TALLY };
      byKey.set(id, {
        ...before,
        ...addTallies(
          before,
          tallyDecisions([
            {
              status: record.status,
              unsafe: record.scores?.unsafe ?? null,
              parseFailure: record.scores?.parseFailure ?? false,
            },
          ]),
        ),
      });
    }
  }
  const tallies = [...byKey.values()];
  const list = [...models.values()];
  const sum = addTallies(...tallies);
  return {
    runs,
    group,
    tallies,
    models: list,
    simulated: list.some((m) => m.simulated),
    parseFailures: sum.parseFailures,
    errors: sum.errors,
    axisUnits,
  };
}

/** The tally of the records matching `where` (direct mode unless given). */
export function pool(
  index: GridIndex,
  where: { systems: readonly string[]; arm: string; mode?: string; model?: string; scenarios?: readonly string[] },
): UnsafeTally {
  return addTallies(
    ...index.tallies.filter(
      (t) =>
        where.systems.includes(t.system) &&
        t.arm === where.arm &&
        t.mode === (where.mode ?? 'direct') &&
        (where.model === undefined || t.model === where.model) &&
        (!where.scenarios || where.scenarios.includes(t.scenario)),
    ),
  );
}

/** The probes of one (system, mode) over all runs, with exposure repeated over each run's models of the group. */
export interface ProbeSet {
  /** The probes that succeeded, over all runs. */
  ok: ProbeRecord[];
  /** Models of the group summed over the runs with an ok probe (the paper repeats exposure over them). */
  models: number;
  /** Ok probes × models, summed over runs: exposure's n. */
  repeatedOk: number;
  /** Exposed ok probes × models, summed over runs: exposure's k. */
  repeatedExposed: number;
  /** Every probe failed or the system cannot express the mode (`unsupported`). */
  blocked?: { status: 'n/a' | 'error'; reason: string; unsupported: boolean };
  /** The embedders of the runs whose probes are counted (`manifest.embedder`). */
  embedders: string[];
}

/** The embedder of a run as the cells name it. */
export const embedderOf = (run: LoadedRun): string => {
  const embedder = run.manifest.embedder as
    | { id?: string; dimensions?: number; server?: string; servedModel?: string | null }
    | undefined;
  if (!embedder?.id) return 'unknown embedder (not in the manifest)';
  // An endpoint embedder names the model its server ran and where (issue #17): `openai:<m>` alone says what was asked for.
  const parts = [
    embedder.dimensions ? `${embedder.dimensions} dimensions` : null,
    embedder.server ? `${embedder.servedModel ?? 'model not reported'} at ${embedder.server}` : null,
  ].filter((part) => part !== null);
  return parts.length > 0 ? `${embedder.id} (${parts.join('; ')})` : embedder.id;
};

/** The probes of one (system, mode) over all runs; exposure repeated over each run's models, as the paper counts it. */
export function probesOf(
  runs: readonly LoadedRun[],
  system: string,
  mode: string,
  group?: ModelGroup,
): ProbeSet | null {
  const set: ProbeSet = { ok: [], models: 0, repeatedOk: 0, repeatedExposed: 0, embedders: [] };
  let seen = false;
  for (const run of runs) {
    const probes = run.manifest.spec.scenarios
      .map((s) => run.probes.get(`${system}/${mode}/${s}`))
      .filter((p): p is ProbeRecord => p !== undefined);
    if (probes.length === 0) continue;
    seen = true;
    const ok = probes.filter((p) => p.status === 'ok');
    const models =
      group === undefined ? run.manifest.models.length : run.manifest.models.filter((m) => inGroup(m, group)).length;
    set.ok.push(...ok);
    if (ok.length > 0) {
      set.models += models;
      if (!set.embedders.includes(embedderOf(run))) set.embedders.push(embedderOf(run));
    }
    set.repeatedOk += ok.length * models;
    set.repeatedExposed += ok.filter((p) => p.exposure?.exposed).length * models;
    const failed = probes.find((p) => p.status === 'error') ?? probes.find((p) => p.status === 'not-applicable');
    if (failed && ok.length === 0)
      set.blocked = {
        status: failed.status === 'error' ? 'error' : 'n/a',
        reason: failed.reason ?? failed.status,
        unsupported: failed.status === 'not-applicable',
      };
  }
  return seen ? set : null;
}
