// The throwaway eval phase "add an eval phase" adds (test only): one folder (the phase and the experiment line that runs
// it) and their two registry lines (pipeline/suites/eval-phases.ts, pipeline/run/experiments.ts).
import type { SourcePart } from '../source-copy.js';

/** The one file: a phase that asks the run's decision model once per scenario and trial, with no memory system. */
const PHASE_FILE = `// A throwaway eval phase (test only): one decision per scenario and trial, no memory system, its own records.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonLines, writeJsonAtomic } from '../../run-log/json-files.js';
import { openRunLogFile } from '../../run-log/run-log-chain.js';
import { accountOfUnits } from '../../run/run-accounting.js';
import { checkOwnArms, loadPolicyScenarioSet } from '../../run/run-components.js';
import { emptySummary, endingAsExit, type EvalPhase } from '../../run/run-experiment.js';
import { GRID_ONLY } from '../grid/eval-phase.js';

interface EchoRecord {
  unitId: string;
  status: 'ok';
  scenario: string;
  trial: number;
  replyLength: number;
}

const records = (runDir: string, experiment: string): EchoRecord[] => {
  const path = join(runDir, \`\${experiment}.jsonl\`);
  return existsSync(path) ? readJsonLines<EchoRecord>(path).rows : [];
};

const unitsOf = (scenarios: readonly { id: string }[], trials: number) =>
  scenarios.flatMap((scenario) =>
    Array.from({ length: trials }, (_, trial) => ({ unitId: \`echo/\${scenario.id}/\${trial}\`, scenario, trial })),
  );

export const echoEvalPhase: EvalPhase = {
  specificationVersion: 'v1',
  id: 'echo',
  memorySystems: false,
  ownArms: true,
  refuses: GRID_ONLY,
  axes: null,
  specIdentity: (experiment, args) => ({ experiment, ...args }),
  runIdPrefix: (experiment) => \`\${experiment}_\`,
  scenarios: loadPolicyScenarioSet,
  checkComponents: checkOwnArms,
  extraModels: () => [],
  components: () => [],
  async plan(input) {
    const units = unitsOf(input.scenarios, input.spec.trials);
    const done = records(input.runDir, input.spec.experiment).length;
    const pending = units.length - done;
    return {
      rows: [{ experiment: input.spec.experiment, system: 'none', mode: '-', arm: 'plain', units: units.length, done, calls: { min: pending, max: pending }, cached: null }],
      models: [],
      notes: ['echo: one call per unit'],
    };
  },
  async run(run) {
    const { spec, parts, control } = run;
    const units = unitsOf(parts.scenarios, spec.trials);
    const recorded = new Set(records(parts.runDir, spec.experiment).map((record) => record.unitId));
    const log = openRunLogFile(parts.runDir, \`\${spec.experiment}.jsonl\`, run.stops.redact);
    control.begin(units.length, recorded.size);
    for (const unit of units.filter((u) => !recorded.has(u.unitId))) {
      const reply = await parts.models[0]!.decide({
        messages: [{ role: 'user', content: unit.scenario.id }],
        trial: unit.trial,
        sample: unit.unitId,
        metadata: { scenario: unit.scenario.id },
      });
      log.append({ unitId: unit.unitId, status: 'ok', scenario: unit.scenario.id, trial: unit.trial, replyLength: reply.text.length });
      control.unitFinished({ status: 'ok', replies: [], parseFailures: 0 });
    }
    const stored = records(parts.runDir, spec.experiment);
    const account = accountOfUnits(units.length, stored, [], stored.map(() => ({ completed: 1, unparseable: 0 })), parts.priceOf);
    writeJsonAtomic(join(parts.runDir, 'summary.json'), { experiment: spec.experiment, units: stored.length });
    const ending = run.finish(account);
    return { ...ending, runDir: parts.runDir, summary: emptySummary(run.manifest.simulated), table: \`echo: \${stored.length} units\` };
  },
  exitRule: endingAsExit,
};
`;

/** The registry line: the entry in EVAL_PHASES (before its closing), and its import. */
const REGISTRY_LINE = {
  importLine: "import { echoEvalPhase } from './echo/eval-phase.js';",
  entry: '  echoEvalPhase,',
  before: '];',
};

/** The experiment line that runs the phase (its arms, defaults and scenario set), in the suite's folder. */
const EXPERIMENT_LINE_FILE = `import { NO_ARGS } from '#core/registry.js';
import type { ExperimentEntry } from '../../run/experiment-entry.js';

export const ECHO_EXPERIMENT = {
  summary: 'a throwaway experiment (test only): one decision per scenario and trial',
  args: NO_ARGS,
  phase: 'echo',
  arms: { plain: 'the only arm' },
  defaultArms: ['plain'],
  defaultModes: [],
  scenarioKind: 'policy',
  ingestingArms: [],
  writesJournals: false,
} satisfies ExperimentEntry;
`;

/** Its registry line in the experiment registry. */
const EXPERIMENT_LINE = {
  importLine: "import { ECHO_EXPERIMENT } from '../suites/echo/experiment-line.js';",
  entry: '  echo: ECHO_EXPERIMENT,',
  before: '} satisfies Record<string, ExperimentEntry>;',
};

/** One folder of two files and two registry lines: 4 files touched. */
export const ECHO_EVAL_PHASE: SourcePart = {
  name: 'an eval phase',
  files: [
    { path: 'pipeline/suites/echo/eval-phase.ts', text: PHASE_FILE },
    { path: 'pipeline/suites/echo/experiment-line.ts', text: EXPERIMENT_LINE_FILE },
  ],
  registryLines: [
    { file: 'pipeline/suites/eval-phases.ts', line: REGISTRY_LINE },
    { file: 'pipeline/run/experiments.ts', line: EXPERIMENT_LINE },
  ],
};
