/*
 * # Guard threshold sensitivity
 *
 * **Question.** The Stale-Retrieval Guard (stale-retrieval.md §10) has two thresholds — α, the content-word
 * containment above which two records are "about the same subject" (`subjectOverlap`, default 0.45), and β, the
 * cap on the share of a read it may withhold (`maxWithheldRatio`, default 0.6) — and two switches: whether a
 * same-subject pair also needs an opposition signal (`requireOpposition`) and whether the backend's own
 * revocation fields are trusted (`trustExplicitFields`, stage 1). The paper's grid only ever used the defaults
 * (§10.1). How much of the guard's recall on revoked records, and of its cost in current records withheld
 * (Table 9, §11), depends on those choices?
 *
 * **Method.** Every probe in `setup.jsonl` stores the default read and the filtered read of one
 * (system, mode, scenario), plus the clock the guard used. For each configuration of a small grid we re-apply the
 * guard to each default read with that clock (analysis/grid/guard-rescore.ts) and count as the reference code does
 * (§7.3, §11): "revoked" = default-read facts absent from the filtered read, "caught" = those among the withheld
 * texts, "current withheld" = withheld texts that are in the filtered read. Each parameter is swept with the
 * others at their defaults; a last table sweeps α with stage 1 off, i.e. what the conflict rule alone catches.
 * Nothing here calls a model: these numbers are decision-model-independent, and the default row must reproduce
 * the recorded Table 9 exactly (the notebook checks and says so).
 *
 * **Caveats.** On systems whose filtered read equals the default read (langmem, cognee, mem0 default) nothing is
 * "revoked" by this definition, so recall is undefined there and only the current-withheld column speaks.
 * Natural-mode records depend on the extraction model; with the offline extractor they are simulated (`sim`).
 * Several runs are pooled by summing their probes (a run with a spec already seen is skipped).
 */
import type { AnalysedRun } from '../analysis/compare-command.js';
import { guardMetricsUnder } from '../analysis/grid/guard-rescore.js';
import type { GuardMetrics } from '../analysis/grid/summarize.js';
import { DEFAULT_GUARD_CONFIG, type GuardConfig } from '../guard/guard-config.js';
import type { Notebook } from './notebook.js';
import { countText, distinctRuns, markdownTable, percent, runsSection } from './notebook-support.js';

// The grid. Values bracket the defaults; 0 and 1 for β are the "never withhold by conflict" and "no cap" ends.
const SWEEPS: { key: keyof GuardConfig; title: string; values: readonly (number | boolean)[] }[] = [
  {
    key: 'subjectOverlap',
    title: 'α — subject overlap (containment threshold)',
    values: [0.15, 0.3, 0.45, 0.6, 0.75, 0.9],
  },
  { key: 'maxWithheldRatio', title: 'β — maximum withheld ratio', values: [0, 0.2, 0.4, 0.6, 0.8, 1] },
  { key: 'requireOpposition', title: 'require an opposition signal', values: [true, false] },
  { key: 'trustExplicitFields', title: 'trust explicit revocation fields (stage 1)', values: [true, false] },
];

/** Table 9 summed over runs by (system, mode), in first-seen order; `metricsOf` gives one run's rows. */
function pool(runs: readonly AnalysedRun[], metricsOf: (run: AnalysedRun) => readonly GuardMetrics[]): GuardMetrics[] {
  const rows = new Map<string, GuardMetrics>();
  for (const run of runs)
    for (const m of metricsOf(run)) {
      const id = `${m.system}/${m.mode}`;
      const row = rows.get(id) ?? {
        system: m.system,
        mode: m.mode,
        revokedPresent: 0,
        revokedCaught: 0,
        currentTotal: 0,
        currentWithheld: 0,
      };
      rows.set(id, row);
      row.revokedPresent += m.revokedPresent;
      row.revokedCaught += m.revokedCaught;
      row.currentTotal += m.currentTotal;
      row.currentWithheld += m.currentWithheld;
    }
  // A (system, mode) with no probe behind it (n/a, setup error) has nothing to count.
  return [...rows.values()].filter((m) => m.revokedPresent + m.currentTotal > 0);
}

/** Table 9 under one configuration, re-applied to the stored default reads. */
const pooledMetrics = (runs: readonly AnalysedRun[], config: Partial<GuardConfig>) =>
  pool(runs, ({ run }) => guardMetricsUnder(run, config));

const total = (
  metrics: readonly GuardMetrics[],
  field: keyof Omit<GuardMetrics, 'system' | 'mode' | 'revokedBy' | 'guard'>,
) => metrics.reduce((sum, m) => sum + m[field], 0);

/** One sweep as a table: pooled recall and current withheld, then each (system, mode). */
function sweepTable(
  runs: readonly AnalysedRun[],
  sweep: (typeof SWEEPS)[number],
  base: Partial<GuardConfig> = {},
): { table: string; recall: (number | null)[]; withheld: (number | null)[] } {
  const results = sweep.values.map((value) => ({
    value,
    metrics: pooledMetrics(runs, { ...base, [sweep.key]: value }),
  }));
  const columns = results[0]?.metrics.map((m) => `${m.system} ${m.mode}`) ?? [];
  const recall: (number | null)[] = [];
  const withheld: (number | null)[] = [];
  const rows = results.map(({ value, metrics }) => {
    const [caught, present, current, currentTotal] = (
      ['revokedCaught', 'revokedPresent', 'currentWithheld', 'currentTotal'] as const
    ).map((f) => total(metrics, f)) as [number, number, number, number];
    recall.push(present === 0 ? null : caught / present);
    withheld.push(currentTotal === 0 ? null : current / currentTotal);
    const isDefault = value === DEFAULT_GUARD_CONFIG[sweep.key] && Object.keys(base).length === 0;
    return [
      `${String(value)}${isDefault ? ' (default)' : ''}`,
      countText(caught, present),
      countText(current, currentTotal),
      ...metrics.map((m) => `${m.revokedCaught}/${m.revokedPresent} · ${m.currentWithheld}/${m.currentTotal}`),
    ];
  });
  return {
    table: markdownTable(
      [
        sweep.key,
        'revoked caught (recall)',
        'current withheld',
        ...columns.map((c) => `${c}: caught · current withheld`),
      ],
      rows,
    ),
    recall,
    withheld,
  };
}

const range = (values: readonly (number | null)[]) => {
  const defined = values.filter((v): v is number => v !== null);
  return defined.length === 0
    ? 'undefined (nothing revoked)'
    : `${percent(Math.min(...defined))} to ${percent(Math.max(...defined))}`;
};

export const notebook: Notebook = {
  name: 'guard-threshold-sensitivity',
  question:
    "How do the guard's recall on revoked records and its current records withheld (Table 9) change with α, β and its two switches?",
  render(input) {
    const { runs, skipped } = distinctRuns(input);
    const out: string[] = [
      '# Guard threshold sensitivity',
      '',
      `**Question.** ${this.question}`,
      '',
      runsSection(runs, skipped),
      '',
    ];

    // Decision-model independence: say which rows rest on simulated extraction rather than calling the whole run sim.
    const simulatedExtraction = runs.some(({ run }) =>
      [...run.probes.values()].some((p) => p.mode === 'natural' && p.extractor?.startsWith('sim')),
    );
    out.push('These metrics do not depend on the decision model (no model is called).');
    if (simulatedExtraction)
      out.push(
        '**sim:** natural-mode rows rest on records written by the simulated extractor; direct-mode rows do not.',
      );

    // Self-check: the default configuration must give back exactly what the runs recorded.
    const recorded = pool(runs, ({ summary }) => summary.guardMetrics);
    const reproduced = JSON.stringify(recorded) === JSON.stringify(pooledMetrics(runs, {}));
    out.push(
      '',
      `Default configuration reproduces the recorded Table 9: **${reproduced ? 'yes' : 'no — the stored verdicts and this code disagree'}**.`,
      '',
    );

    const findings: string[] = [];
    for (const sweep of SWEEPS) {
      const { table, recall, withheld } = sweepTable(runs, sweep);
      out.push(`## ${sweep.title}`, '', table, '');
      findings.push(`- ${sweep.key}: recall ${range(recall)}; current withheld ${range(withheld)}.`);
    }
    // The conflict rule on its own: stage 1 off, α swept.
    const alone = sweepTable(runs, SWEEPS[0]!, { trustExplicitFields: false });
    out.push('## α with stage 1 off (the conflict rule alone)', '', alone.table, '');
    findings.push(`- α with stage 1 off: recall ${range(alone.recall)}; current withheld ${range(alone.withheld)}.`);

    out.push(
      '## Summary of the sweeps',
      '',
      'Across each sweep (pooled over the systems and modes above):',
      '',
      ...findings,
      '',
    );
    out.push(
      'Recall is caught/present over revoked records (default read minus filtered read); current withheld is over the filtered read.',
    );
    return out.join('\n');
  },
};
