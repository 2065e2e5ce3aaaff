// Table 9 (stale-retrieval.md §11): the stale-retrieval guard per system, direct and indirect, from the logged probes.
import { probesOf } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { HYPOTHETICAL_ORACLE } from '../../pipeline/index.js';
import { guardMetricsOf, guardV2MetricsOf, oracleGuardMetricsOf } from '../grid/summarize.js';
import { missingCell, proportionCell, table, valueCell } from '../table-cells.js';
import { embedderNote, runIds, systemLabel } from './grid-table-parts.js';
import { defineTable } from './table-definition.js';

/** The paper's row order; systems of the runs that it does not name follow. */
const TABLE9_SYSTEMS = ['cognee', 'graphiti', 'langmem', 'mem0', 'mem0-exp', 'zep-ce'];

/** Table 9: the stale-retrieval guard per system (direct and indirect), recomputed from the logged probes. */
export function buildTable9(runs: readonly LoadedRun[]): PaperTable {
  const cells: TableCell[] = [];
  const notes = [
    "Revoked = default-read facts absent from the filtered read (spec §7.3); caught = those the guard withheld; current withheld = withheld texts in the filtered read. Summed over logged retrieval rows (the paper's denominators are as logged and include re-probed rows, spec §11).",
    'Decision-model-independent: no decision model enters this table.',
  ];
  const systems = [...TABLE9_SYSTEMS, ...new Set(runs.flatMap((r) => r.manifest.spec.systems))].filter(
    (s, i, all) => all.indexOf(s) === i,
  );
  // guard-v2 gets the reference's caught / current-withheld columns when a run measured it (issue #29 item 5).
  const withGuardV2 = runs.some((r) => r.manifest.spec.arms.includes('guard-v2'));
  const v2ColumnsOf = (suffix: string) =>
    withGuardV2 ? [`caught, guard-v2 (${suffix})`, `current withheld, guard-v2 (${suffix})`] : [];
  const columnsOf = (suffix: string) => [
    `revoked present (${suffix})`,
    `caught (${suffix})`,
    `current withheld (${suffix})`,
    ...v2ColumnsOf(suffix),
  ];
  let simulatedExtraction = false;
  let oracleRows = false;
  for (const system of systems)
    for (const [mode, suffix] of [
      ['direct', 'direct'],
      ['natural', 'indirect'],
    ] as const) {
      const probes = probesOf(runs, system, mode);
      if (!probes) continue;
      const row = systemLabel(system);
      if (probes.blocked && probes.ok.length === 0) {
        // A system that cannot express the mode (Zep: natural only) has no row to compare: n/a, never a logged zero.
        const { status, reason, unsupported } = probes.blocked;
        cells.push(
          ...[...columnsOf(suffix), ...(mode === 'natural' ? ['indirect revocation recorded'] : [])].map((column) =>
            missingCell(row, column, 'model-independent', reason, status, unsupported),
          ),
        );
        continue;
      }
      const extra: Partial<TableCell> = { embedder: probes.embedders.join(' + ') };
      const usesSimExtraction =
        mode === 'natural' &&
        runs.some(
          (r) =>
            r.manifest.extraction?.simulated &&
            r.manifest.spec.modes.includes('natural') &&
            r.manifest.spec.systems.includes(system),
        );
      if (usesSimExtraction) {
        simulatedExtraction = true;
        extra.reason = 'natural-mode ingestion used the simulated extractor';
      }
      const sum = { revokedPresent: 0, revokedCaught: 0, currentTotal: 0, currentWithheld: 0 };
      const oracleSum = { ...sum };
      const v2Sum = { ...sum };
      let oracleRow = false;
      for (const run of runs) {
        const { spec } = run.manifest;
        if (!spec.systems.includes(system) || !spec.modes.includes(mode)) continue;
        const [metrics] = guardMetricsOf([system], [mode], spec.scenarios, run.probes);
        if (metrics) for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += metrics[key];
        const [v2] = guardV2MetricsOf(spec.arms, [system], [mode], spec.scenarios, run.probes);
        if (v2) for (const key of Object.keys(v2Sum) as (keyof typeof sum)[]) v2Sum[key] += v2[key];
        // The harness's hypothetical Zep row (revoked = oracle labels), for runs with a zep-oracle-filter arm.
        const [oracle] = oracleGuardMetricsOf(spec.arms, [system], [mode], spec.scenarios, run.probes);
        if (oracle) oracleRow = true;
        if (oracle) for (const key of Object.keys(oracleSum) as (keyof typeof sum)[]) oracleSum[key] += oracle[key];
      }
      const [present_, caught, withheld, v2Caught, v2Withheld] = columnsOf(suffix) as [
        string,
        string,
        string,
        string?,
        string?,
      ];
      const rowsOf = [
        [row, sum] as const,
        ...(oracleRow ? [[`${row}, ${HYPOTHETICAL_ORACLE}`, oracleSum] as const] : []),
      ];
      for (const [label, total] of rowsOf) {
        cells.push({ ...valueCell(label, present_, total.revokedPresent, 'model-independent'), ...extra });
        cells.push(
          proportionCell(
            label,
            caught,
            { k: total.revokedCaught, n: total.revokedPresent },
            'model-independent',
            extra,
          ),
        );
        cells.push(
          proportionCell(
            label,
            withheld,
            { k: total.currentWithheld, n: total.currentTotal },
            'model-independent',
            extra,
          ),
        );
      }
      if (v2Caught && v2Withheld)
        cells.push(
          proportionCell(
            row,
            v2Caught,
            { k: v2Sum.revokedCaught, n: v2Sum.revokedPresent },
            'model-independent',
            extra,
          ),
          proportionCell(
            row,
            v2Withheld,
            { k: v2Sum.currentWithheld, n: v2Sum.currentTotal },
            'model-independent',
            extra,
          ),
        );
      if (oracleRow) oracleRows = true;
      if (mode === 'natural' && probes.ok.length > 0) {
        const recorded = probes.ok.filter((p) => {
          const current = new Set((p.filteredRead ?? p.defaultRead ?? []).map((r) => r.text));
          return (p.defaultRead ?? []).some((r) => !current.has(r.text));
        }).length;
        cells.push(
          proportionCell(
            row,
            'indirect revocation recorded',
            { k: recorded, n: probes.ok.length },
            'model-independent',
            extra,
          ),
        );
      }
    }
  if (withGuardV2)
    notes.push(
      'guard-v2 columns: guard-v2 (default settings, as its arm runs) re-applied to the same logged default reads at the same clock, against the same revoked and current records (runs without a guard-v2 arm count nothing there).',
    );
  if (oracleRows)
    notes.push(
      `Rows marked "${HYPOTHETICAL_ORACLE}": revoked = default-read facts the store's oracle labels revoked (the paper's harness read Zep's Neo4j, zep_probe.py), current = the rest; a capability Zep CE does not offer applications (runs with a zep-oracle-filter arm).`,
    );
  notes.push(
    'indirect revocation recorded = natural-mode scenarios whose default read held a record the filtered read drops (a revocation the store recorded but did not return is not seen).',
    ...embedderNote(cells),
  );
  const columns = ['direct', 'indirect'].flatMap(columnsOf).concat('indirect revocation recorded');
  // No decision model enters Table 9: it is sim only through a simulated extractor, or when every run is simulated.
  const simulated = simulatedExtraction || runs.every((r) => r.manifest.simulated);
  if (simulatedExtraction) notes.push('Indirect columns: natural-mode ingestion used the simulated extractor (sim).');
  return table(
    '9',
    'Stale-Retrieval Guard per system, direct and indirect insertion',
    cells,
    columns,
    simulated,
    runIds(runs),
    notes,
  );
}

/** Table 9, registered: no decision model enters it, so it is built once from every grid run. */
export const table9 = defineTable({
  id: '9',
  paper: true,
  scope: 'grid',
  perModelGroup: false,
  build: (inputs) => buildTable9(inputs.grid),
});
