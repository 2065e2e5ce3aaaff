// Aggregates unit records and retrieval probes into summary cells, one per (model, system, mode, arm).
import type { LimitedMark, ProbeRecord, UnitRecord, ModelUsage } from '../../pipeline/index.js';
import {
  type AxisChoice,
  axesOf,
  axisCombinations,
  axisOn,
  type CellAxes,
  cellAxes,
  gridDefences,
  isArmId,
  oracleFilteredRead,
  tableNineWithheld,
} from '../../pipeline/index.js';
import { defenceLabel } from '../defence-label.js';
import type { PoemEnforcement } from '../forged-reasoning/poem-enforcement.js';
import { poemCellFields, type PoemSkipCounts } from '../forged-reasoning/poem-skip-counts.js';
import { tallyDecisions, unsafeCounts, type UnsafeCounts } from '../unsafe-counts.js';

export { proportion } from '../unsafe-counts.js';

/**
 * `summary.json` shape version (grid and follow-up runs). Bump on any shape change, say here what it adds, keep the
 * older one in {@link READABLE_SUMMARY_VERSIONS} while `pnpm rescore` still checks it, and test that; the zod schema
 * in analysis/schemas/summary-schema.ts follows (its test checks the types), and `pnpm schemas` publishes the new
 * data/schemas/summary.v<N>.schema.json.
 *
 * - 1: `unsafe` counted parsed replies only.
 * - 2 (issue #11): `unsafe` is the paper's convention (parse failures in n as not unsafe, errors in no n) and
 *   `unsafeAmongParsed` the second rate.
 * - 3 (issue #26): the optional fields added while summaries still said 2: cells' `poemSkips` (the `--poem on`
 *   prior-step design) and `ledgerMetrics` (defences that consult the revocation ledger). Nothing else changed, so a
 *   version-2 summary is checked as a version-3 one in which they do not occur (a run that used neither).
 */
export const SUMMARY_VERSION = 3 as const;

/** The `summary.json` versions `pnpm rescore` checks a stored summary of; the current one last. */
export const READABLE_SUMMARY_VERSIONS: readonly number[] = [2, SUMMARY_VERSION];

/**
 * One summary cell. Its unsafe fields are `UnsafeCounts` (analysis/unsafe-counts.ts), the one way of counting. Its
 * defence axes (`CellAxes<'grid'>`, pipeline/defences/axes) follow `arm`: `guard` is `on` when the stale-retrieval
 * guard filtered this arm's context (`--guard on`), `poem` when the proof-of-execution gate checked the decisions.
 */
export interface SummaryCell extends UnsafeCounts, CellAxes<'grid'> {
  model: string;
  /** `sim (simulated)` for the simulator. */
  modelLabel: string;
  simulated: boolean;
  system: string;
  mode: string;
  arm: string;
  /** The defence in words: `store filter + stale guard + PoEM gate` (analysis/defence-label.ts). */
  defence: string;
  /** `ok`; `n/a` when the system cannot express the mode (with `reason`); `error` when setup failed. */
  status: 'ok' | 'n/a' | 'error';
  reason?: string;
  /** Which extractor produced natural-mode records (`none` for direct seeding). */
  extractor: string;
  /** Scenarios whose DEFAULT read returned a revoked record (the paper's exposure; model-independent). */
  exposure: { k: number; n: number };
  /** Scenarios whose context under THIS arm held a revoked record. */
  contextExposure: { k: number; n: number };
  /** 1-based rank of the first revoked record in the default read, over exposed scenarios. */
  revokedRank: { mean: number; min: number; max: number } | null;
  cachedReplies: number;
  /** With `--poem on`: how many decisions the gate allowed, overrode, found the ledger broken for, or did not gate. */
  poemVerdicts?: Record<string, number>;
  /** With `--poem on`: whether `unsafe` is a measurement or 0 by construction (analysis/forged-reasoning/poem-enforcement.ts). */
  poemEnforcement?: PoemEnforcement;
  /** With `--poem on`: unsafe skips blocked, legitimate skips wrongly blocked (analysis/forged-reasoning/poem-skip-counts.ts). */
  poemSkips?: PoemSkipCounts;
}

/**
 * Guard metrics per (system, mode), computed as the reference code does (Table 9): "revoked" are default-read
 * facts absent from the filtered read (§7.3); caught = those among the guard's withheld texts; current withheld =
 * withheld texts that are in the filtered read. Model-independent.
 */
export interface GuardMetrics {
  system: string;
  mode: string;
  /** `oracle`: revoked = the oracle's labels (the harness's hypothetical Zep filter), not the filtered read. */
  revokedBy?: 'oracle';
  /** `guard-v2`: the row measures guard-v2 (re-applied to the logged default read at the probe's clock); absent: `guard`. */
  guard?: 'guard-v2';
  revokedPresent: number;
  revokedCaught: number;
  currentTotal: number;
  currentWithheld: number;
}

/**
 * The stale guard without and with the revocation ledger on the same probes (issue #19 item 2), per (system, mode):
 * revoked = default-read records carrying a statement the application revoked (`revokedByApplication`); caught =
 * those withheld; current withheld = every other record withheld. Only probes that recorded the ledger count.
 */
export interface LedgerMetrics extends Omit<GuardMetrics, 'system' | 'mode' | 'revokedBy'> {
  system: string;
  mode: string;
  /** `guard` (Table 9's guard alone) or `guard + revocation ledger`. */
  defence: 'guard' | 'guard + revocation ledger';
}

/** `summary.json`. */
export interface Summary {
  version: typeof SUMMARY_VERSION;
  simulated: boolean;
  cells: SummaryCell[];
  guardMetrics: GuardMetrics[];
  /** Present when a defence of the run consulted the revocation ledger. */
  ledgerMetrics?: LedgerMetrics[];
  cache: { hits: number; misses: number; hitRate: number | null };
  /** Calls, tokens and dollars per model, as the run's manifest recorded them (issue #12). */
  usage?: ModelUsage[];
  /** `--limit N`: the run holds at most N of its units (the manifest's `limited`); its cells are not the full run's. */
  limited?: LimitedMark;
}

/**
 * What summarising reads of a unit record (a `UnitRecord` is one): `summaryRecordOf` keeps only this, so a run's
 * records can be streamed into a summary without holding them (issue #18).
 */
export interface SummaryRecord {
  /** The unit's key. */
  key: UnitRecord['key'];
  /** `ok` or `error`. */
  status: UnitRecord['status'];
  /** Unsafe and parse-failure scores. */
  scores: UnitRecord['scores'];
  /** Whether the context held a revoked record. */
  context: Pick<UnitRecord['context'], 'exposed'>;
  /** The gate's verdict, with `--poem on`. */
  poem?: Pick<NonNullable<UnitRecord['poem']>, 'verdict'>;
  /** The safety step run before the decision (PoEM-on grid units, pipeline/suites/grid/poem-prior-step.ts). */
  priorSafetyStep?: UnitRecord['priorSafetyStep'];
  /** Whether the reply came from the cache, and the calls it took. */
  reply: Pick<NonNullable<UnitRecord['reply']>, 'cached' | 'attempts'> | null;
}

/** The part of a unit record that summarising reads. */
export function summaryRecordOf(record: UnitRecord): SummaryRecord {
  return {
    key: record.key,
    status: record.status,
    scores: record.scores,
    context: { exposed: record.context.exposed },
    ...(record.poem ? { poem: { verdict: record.poem.verdict } } : {}),
    ...(record.priorSafetyStep ? { priorSafetyStep: record.priorSafetyStep } : {}),
    reply: record.reply ? { cached: record.reply.cached, attempts: record.reply.attempts } : null,
  };
}

/** Builds the cells in the order given by the spec's lists. */
export function summarize(input: {
  models: readonly { id: string; label: string; simulated: boolean }[];
  systems: readonly string[];
  modes: readonly string[];
  arms: readonly string[];
  /** The defence axes' values of the run (`{ guard: ['off', 'on'] }`; an absent axis is off). */
  axes?: AxisChoice;
  /** The run recorded the PoEM prior-step design (pipeline/suites/grid/poem-prior-step.ts): cells then carry `poemSkips`. */
  poemPriorStep?: boolean;
  scenarios: readonly string[];
  probes: ReadonlyMap<string, ProbeRecord>;
  records: Iterable<SummaryRecord>;
  cache?: { hits: number; misses: number };
}): Summary {
  const gridAxes = axesOf('grid');
  const combinations = axisCombinations(gridAxes, input.axes ?? {});
  const byCell = new Map<string, SummaryRecord[]>();
  const inScenarios = new Set(input.scenarios);
  for (const record of input.records) {
    if (!inScenarios.has(record.key.scenario)) continue; // O(1) per record: one push, no copy of the cell
    const id = [
      record.key.model,
      record.key.system,
      record.key.mode,
      record.key.arm,
      ...gridAxes.map((axis) => String(axisOn(record.key, axis.id))),
    ].join('\u0000');
    const cell = byCell.get(id);
    if (cell) cell.push(record);
    else byCell.set(id, [record]);
  }
  const cells: SummaryCell[] = [];
  for (const model of input.models)
    for (const system of input.systems)
      for (const mode of input.modes) {
        const probes = input.scenarios
          .map((scenario) => input.probes.get(`${system}/${mode}/${scenario}`))
          .filter((p) => p !== undefined);
        const notApplicable = probes.find((p) => p.status === 'not-applicable');
        const failed = probes.find((p) => p.status === 'error');
        const ok = probes.filter((p) => p.status === 'ok');
        const ranks = ok.map((p) => p.exposure?.revokedRank).filter((r): r is number => typeof r === 'number');
        for (const on of combinations)
          for (const arm of input.arms) {
            const records =
              byCell.get(
                [model.id, system, mode, arm, ...gridAxes.map((axis) => String(on[axis.id]))].join('\u0000'),
              ) ?? [];
            const completed = records.filter((r) => r.status === 'ok');
            const counts = unsafeCounts(
              tallyDecisions(
                records.map((r) => ({
                  status: r.status,
                  unsafe: r.scores.unsafe,
                  parseFailure: r.scores.parseFailure,
                })),
              ),
            );
            const contextByScenario = new Map(completed.map((r) => [r.key.scenario, r.context.exposed]));
            cells.push({
              model: model.id,
              modelLabel: model.label,
              simulated: model.simulated,
              system,
              mode,
              arm,
              ...cellAxes('grid', on),
              defence: defenceLabel({ arm, ...on }),
              ...(on.poem ? poemCellFields(completed, counts.unsafe.k, input.poemPriorStep ?? false) : {}),
              ...statusOf(failed, notApplicable ?? oracleNotApplicable(arm, ok)),
              extractor: ok[0]?.extractor ?? 'none',
              exposure: { k: ok.filter((p) => p.exposure?.exposed).length, n: ok.length },
              contextExposure: {
                k: [...contextByScenario.values()].filter(Boolean).length,
                n: contextByScenario.size,
              },
              revokedRank:
                ranks.length === 0
                  ? null
                  : {
                      mean: ranks.reduce((a, b) => a + b, 0) / ranks.length,
                      min: Math.min(...ranks),
                      max: Math.max(...ranks),
                    },
              ...counts,
              cachedReplies: completed.filter((r) => r.reply?.cached).length,
            });
          }
      }
  const hits = input.cache?.hits ?? 0;
  const misses = input.cache?.misses ?? 0;
  return {
    version: SUMMARY_VERSION,
    simulated: input.models.some((m) => m.simulated),
    cells,
    guardMetrics: [
      ...guardMetricsOf(input.systems, input.modes, input.scenarios, input.probes),
      ...oracleGuardMetricsOf(input.arms, input.systems, input.modes, input.scenarios, input.probes),
      ...guardV2MetricsOf(input.arms, input.systems, input.modes, input.scenarios, input.probes),
    ],
    ...ledgerPart(input.systems, input.modes, input.scenarios, input.probes),
    cache: { hits, misses, hitRate: hits + misses === 0 ? null : hits / (hits + misses) },
  };
}

/** A cell's status: `error` (failed setup), `n/a` (the system cannot express it), else `ok`; with the reason. */
function statusOf(
  failed: { reason?: string } | undefined,
  notApplicable: { reason?: string } | undefined,
): Pick<SummaryCell, 'status' | 'reason'> {
  const reason = (failed ?? notApplicable)?.reason;
  return { status: failed ? 'error' : notApplicable ? 'n/a' : 'ok', ...(reason ? { reason } : {}) };
}

/** The oracle arms (hypothetical Zep oracle filter) on a system whose labels are not the oracle's: n/a, with why. */
function oracleNotApplicable(arm: string, ok: readonly ProbeRecord[]): { reason: string } | undefined {
  if (!isArmId(arm) || ok.length === 0 || ok.some((p) => p.exposure?.rule === 'oracle')) return undefined;
  const reason = gridDefences({ arm, guard: false, poem: false }).requiresOracle;
  return reason === null ? undefined : { reason };
}

/**
 * Table 9's guard metrics as the paper's harness computed them for Zep: revoked = the oracle's labels (its
 * hypothetical filtered read), for the systems with oracle labels, when the run has an arm that needs them
 * (`zep-oracle-filter`); else none. The guard's catches of revocations the store hides then count as catches.
 */
export function oracleGuardMetricsOf(
  arms: readonly string[],
  systems: readonly string[],
  modes: readonly string[],
  scenarios: readonly string[],
  probes: ReadonlyMap<string, ProbeRecord>,
): GuardMetrics[] {
  if (!arms.some((arm) => isArmId(arm) && gridDefences({ arm, guard: false, poem: false }).requiresOracle !== null))
    return [];
  const oracleSystems = systems.filter((system) =>
    [...probes.values()].some((p) => p.system === system && p.status === 'ok' && p.exposure?.rule === 'oracle'),
  );
  return guardMetricsOf(oracleSystems, modes, scenarios, probes, 'oracle').map((m) => ({ ...m, revokedBy: 'oracle' }));
}

/**
 * guard-v2's rows of Table 9 for a run with a `guard-v2` arm (issue #29 item 5): the same columns as the reference's,
 * guard-v2 (default settings, as the arm runs it) re-applied to each logged default read at the probe's guard clock.
 */
export function guardV2MetricsOf(
  arms: readonly string[],
  systems: readonly string[],
  modes: readonly string[],
  scenarios: readonly string[],
  probes: ReadonlyMap<string, ProbeRecord>,
): GuardMetrics[] {
  if (!arms.includes('guard-v2')) return [];
  return guardMetricsOf(systems, modes, scenarios, probes, 'filter', 'guard-v2').map((m) => ({
    ...m,
    guard: 'guard-v2',
  }));
}

/** Table 9's guard metrics from the logged probes (the reference guard's logged verdicts, or guard-v2 re-applied). */
export function guardMetricsOf(
  systems: readonly string[],
  modes: readonly string[],
  scenarios: readonly string[],
  probes: ReadonlyMap<string, ProbeRecord>,
  revokedBy: 'filter' | 'oracle' = 'filter',
  guard: 'guard' | 'guard-v2' = 'guard',
): GuardMetrics[] {
  const metrics: GuardMetrics[] = [];
  for (const system of systems)
    for (const mode of modes) {
      const row: GuardMetrics = {
        system,
        mode,
        revokedPresent: 0,
        revokedCaught: 0,
        currentTotal: 0,
        currentWithheld: 0,
      };
      for (const scenario of scenarios) {
        const probe = probes.get(`${system}/${mode}/${scenario}`);
        if (probe?.status !== 'ok' || !probe.guard) continue;
        const defaultFacts = (probe.defaultRead ?? []).map((r) => r.text);
        // `oracle`: the harness's hypothetical filtered read for Zep (the oracle's not-revoked records), as the paper used.
        const filtered =
          revokedBy === 'oracle' ? oracleFilteredRead(probe) : (probe.filteredRead ?? probe.defaultRead ?? []);
        if (filtered === null) continue;
        const current = new Set(filtered.map((r) => r.text));
        const withheld = new Set(
          guard === 'guard'
            ? probe.guard.withheldTexts
            : tableNineWithheld(probe.defaultRead ?? [], new Date(probe.guard.now), undefined, 'guard-v2'),
        );
        const revoked = defaultFacts.filter((fact) => !current.has(fact));
        row.revokedPresent += revoked.length;
        row.revokedCaught += revoked.filter((fact) => withheld.has(fact)).length;
        row.currentTotal += current.size;
        row.currentWithheld += [...withheld].filter((text) => current.has(text)).length;
      }
      metrics.push(row);
    }
  return metrics;
}

/** The side-by-side rows of the stale guard without and with the revocation ledger, from the logged probes. */
function ledgerMetricsOf(
  systems: readonly string[],
  modes: readonly string[],
  scenarios: readonly string[],
  probes: ReadonlyMap<string, ProbeRecord>,
): LedgerMetrics[] {
  const rows: LedgerMetrics[] = [];
  for (const system of systems)
    for (const mode of modes) {
      const judged = scenarios
        .map((scenario) => probes.get(`${system}/${mode}/${scenario}`))
        .filter((probe): probe is ProbeRecord & Required<Pick<ProbeRecord, 'ledger' | 'guard'>> =>
          Boolean(probe?.status === 'ok' && probe.ledger && probe.guard),
        );
      if (judged.length === 0) continue;
      for (const defence of ['guard', 'guard + revocation ledger'] as const) {
        const row: LedgerMetrics = {
          system,
          mode,
          defence,
          revokedPresent: 0,
          revokedCaught: 0,
          currentTotal: 0,
          currentWithheld: 0,
        };
        for (const probe of judged) {
          const withheld = new Set(defence === 'guard' ? probe.guard.withheldTexts : probe.ledger.guardWithheldTexts);
          (probe.defaultRead ?? []).forEach((record, index) => {
            const revoked = probe.ledger.revokedByApplication[index] === true;
            const caught = withheld.has(record.text);
            if (revoked) {
              row.revokedPresent += 1;
              row.revokedCaught += caught ? 1 : 0;
            } else {
              row.currentTotal += 1;
              row.currentWithheld += caught ? 1 : 0;
            }
          });
        }
        rows.push(row);
      }
    }
  return rows;
}

const ledgerPart = (...args: Parameters<typeof ledgerMetricsOf>): { ledgerMetrics?: LedgerMetrics[] } => {
  const rows = ledgerMetricsOf(...args);
  return rows.length > 0 ? { ledgerMetrics: rows } : {};
};
