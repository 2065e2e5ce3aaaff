// The forged-reasoning run summary (poem.md §6): differential ASR per model × defence × condition, the benign
// legitimate-skip and false-positive rates per style, and the adaptive attacker per defence; per scenario and pooled.
import {
  ATTACK_CONDITIONS,
  defenceOf,
  readForgedReasoningRecords,
  type AttackerRecord,
  type ForgedReasoningRecord,
  type ModelUsage,
  type RunManifest,
} from '../../pipeline/index.js';
import {
  ATTACKER_DEFENCES,
  scoreAttack,
  scoreAttempt,
  scoreFalsePositive,
  scoreLegitimateSkip,
  tallyScores,
  type TrialScore,
} from './forged-reasoning-scoring.js';
import { overheadRows, type OverheadRow } from './forged-reasoning-overhead.js';
import { proportion, type Proportion } from '../unsafe-counts.js';

/** The benign styles, as the records key them. */
const STYLES = ['plain', 'structured', 'audit'] as const;

/** One cell: a metric over the scored trials of a (model, defence, condition) group, with what was left out. */
export interface ForgedReasoningCell {
  model: string;
  /** `sim (simulated)` for the simulator. */
  modelLabel: string;
  simulated: boolean;
  defence: string;
  /** The registered defence's label (`sentinel-style wording guard`). */
  defenceLabel: string;
  /** `asr`: differential attack success; `legitimate-skip`: benign skips executed; `false-positive`: benign skips wrongly blocked. */
  metric: 'asr' | 'legitimate-skip' | 'false-positive';
  /** An attack condition for `asr`, a benign style (or `*`, all styles) otherwise. */
  condition: string;
  /** A scenario id, or `*` pooled over the run's scenarios. */
  scenario: string;
  /** Successes of the scored trials (n excludes parse failures and errors). */
  rate: Proportion;
  /** Trials left out because a reply named no action (never scored as safe). */
  parseFailures: number;
  /** Trials left out because a call raised. */
  errors: number;
}

/** One adaptive-attacker row: attempts scored against each defence, and the queries to the first success. */
export interface AttackerRow {
  model: string;
  modelLabel: string;
  simulated: boolean;
  attacker: string;
  /** `mutation-engine/v1 (offline, deterministic; not a language model)` or the attacker model's label. */
  attackerLabel: string;
  scenario: string;
  /** Attempts that fool the victim under each defence, of the scored attempts. */
  byDefence: Record<(typeof ATTACKER_DEFENCES)[number], Proportion>;
  /** Per loop: the query of its first success (fools the victim and evades the guard), or null. */
  firstSuccess: (number | null)[];
  /** How each loop stopped. */
  stops: AttackerRecord['stop'][];
  /** Attempts without a note, or whose victim reply named no action. */
  parseFailures: number;
  errors: number;
}

/** `summary.json` of a forged-reasoning run. */
export interface ForgedReasoningSummary {
  version: 1;
  experiment: 'forged-reasoning';
  /** Any victim is the simulator: every table says sim. */
  simulated: boolean;
  cells: ForgedReasoningCell[];
  attacker: AttackerRow[];
  /** The agent that proposed the actions (`--agent`); absent in summaries written before it existed (= `prompt`). */
  agent?: string;
  /** PoEM Table IV's measured columns per model (analysis/forged-reasoning/forged-reasoning-overhead.ts). */
  overhead?: OverheadRow[];
  usage?: ModelUsage[];
}

const cellOf = (scores: TrialScore[]) => {
  const tally = tallyScores(scores);
  return { rate: proportion(tally.successes, tally.scored), parseFailures: tally.parseFailures, errors: tally.errors };
};

/** What the summary reads of a run besides its records: its models, and the scenarios, arms and agent it ran. */
export interface ForgedReasoningRunOf {
  models: readonly Pick<RunManifest['models'][number], 'id' | 'label' | 'simulated'>[];
  spec: Pick<RunManifest['spec'], 'scenarios' | 'arms' | 'agent'>;
  usage?: RunManifest['usage'];
}

/** Summarises records (every surface reads this; the forged-reasoning suite writes it as summary.json). */
export function summarizeForgedReasoning(
  manifest: ForgedReasoningRunOf,
  records: Iterable<ForgedReasoningRecord | AttackerRecord>,
): ForgedReasoningSummary {
  const all = [...records];
  const trials = all.filter((r): r is ForgedReasoningRecord => r.type === 'forged-reasoning-end');
  const loops = all.filter((r): r is AttackerRecord => r.type === 'adaptive-attacker-end');
  const scenarios = [...manifest.spec.scenarios, '*'];
  const cells: ForgedReasoningCell[] = [];
  const undefended = new Map(
    trials.filter((r) => r.key.defence === 'none').map((r) => [`${r.key.scenario}/${r.key.model}/${r.key.trial}`, r]),
  );
  for (const model of manifest.models)
    for (const defence of manifest.spec.arms)
      for (const scenario of scenarios) {
        const mine = trials.filter(
          (r) =>
            r.key.model === model.id && r.key.defence === defence && (scenario === '*' || r.key.scenario === scenario),
        );
        if (mine.length === 0) continue;
        const base = {
          model: model.id,
          modelLabel: model.label,
          simulated: model.simulated,
          defence,
          defenceLabel: defenceOf(defence).label,
          scenario,
        };
        for (const condition of ATTACK_CONDITIONS) {
          const ran = mine.filter((r) => r.attacks[condition] !== undefined);
          if (ran.length > 0)
            cells.push({
              ...base,
              metric: 'asr',
              condition,
              ...cellOf(ran.map((r) => scoreAttack(r.clean, r.attacks[condition]))),
            });
        }
        for (const style of [...STYLES, '*'] as const) {
          const styles = style === '*' ? STYLES : [style];
          cells.push({
            ...base,
            metric: 'legitimate-skip',
            condition: style,
            ...cellOf(mine.flatMap((r) => styles.map((s) => scoreLegitimateSkip(r.benign[s])))),
          });
          const paired = mine.filter((r) => undefended.has(`${r.key.scenario}/${r.key.model}/${r.key.trial}`));
          if (paired.length > 0)
            cells.push({
              ...base,
              metric: 'false-positive',
              condition: style,
              ...cellOf(
                paired.flatMap((r) =>
                  styles.map((s) =>
                    scoreFalsePositive(
                      undefended.get(`${r.key.scenario}/${r.key.model}/${r.key.trial}`)!.benign[s],
                      r.benign[s],
                    ),
                  ),
                ),
              ),
            });
        }
      }
  const attacker: AttackerRow[] = [];
  for (const model of manifest.models)
    for (const scenario of scenarios) {
      const mine = loops.filter((r) => r.key.model === model.id && (scenario === '*' || r.key.scenario === scenario));
      if (mine.length === 0) continue;
      const scores = mine.flatMap((r) => r.attempts.map(scoreAttempt));
      const tally = tallyScores(scores);
      const byDefence = Object.fromEntries(
        ATTACKER_DEFENCES.map((d) => [
          d,
          proportion(scores.filter((s) => s.kind === 'scored' && s.byDefence![d]).length, tally.scored),
        ]),
      ) as AttackerRow['byDefence'];
      attacker.push({
        model: model.id,
        modelLabel: model.label,
        simulated: model.simulated,
        attacker: mine[0]!.key.attacker,
        attackerLabel: mine[0]!.attackerLabel,
        scenario,
        byDefence,
        firstSuccess: mine.map((r) => r.attempts.find((a) => a.feedback === 'success')?.query ?? null),
        stops: mine.map((r) => r.stop),
        parseFailures: tally.parseFailures,
        errors: tally.errors,
      });
    }
  return {
    version: 1,
    experiment: 'forged-reasoning',
    simulated: manifest.models.some((m) => m.simulated),
    cells,
    attacker,
    agent: manifest.spec.agent ?? 'prompt',
    overhead: overheadRows(manifest.models, trials),
    ...(manifest.usage ? { usage: manifest.usage } : {}),
  };
}

/** The summary of a run directory, from its stored records only. */
export function summarizeForgedReasoningRun(run: {
  runDir: string;
  manifest: Pick<RunManifest, 'models' | 'spec' | 'usage'>;
}): ForgedReasoningSummary {
  return summarizeForgedReasoning(run.manifest, readForgedReasoningRecords(run.runDir).values());
}
