// The standalone eval phase (pipeline/run/eval-phase-v1.ts): forged-reasoning (poem.md §6) in its own in-process world,
// no memory system and no seeding mode (`forged-reasoning.jsonl`); its attacker model is called besides `--model`.
import { AGENTS } from './agents.js';
import { MUTATION_ENGINE } from './mutation-engine.js';
import { planForgedReasoningRun, runForgedReasoningExperiment } from './run-phase.js';
import { checkOwnArms, loadReasoningScenarioSet } from '../../run/run-components.js';
import { endingAsExit, type EvalPhase } from '../../run/run-experiment.js';
import { GRID_ONLY } from '../grid/eval-phase.js';

/** forged-reasoning: trial units and adaptive-attacker loops, as one process, its rounds driven by the replies. */
export const forgedReasoningEvalPhase: EvalPhase = {
  specificationVersion: 'v1',
  id: 'standalone',
  memorySystems: false,
  ownArms: true,
  refuses: {
    ...GRID_ONLY,
    batch: () =>
      "not with a standalone experiment: its attacker loop sends each query after reading the last reply, and its phase does not collect its units' calls into rounds (the grid and the follow-up experiments do); run it without --batch",
    limit: (experiment) =>
      `applies to the grid and the follow-up experiments; ${experiment} plans its attacker loops from the replies, so a unit limit cannot be honoured (use --trials, --scenarios, --forgeries or --attacker-queries)`,
  },
  axes: null,
  specIdentity: (experiment, args) => ({ experiment, ...args }),
  runIdPrefix: (experiment) => `${experiment}_`,
  scenarios: loadReasoningScenarioSet,
  checkComponents: checkOwnArms,
  extraModels: ({ attackerModel }) =>
    attackerModel !== null && attackerModel !== MUTATION_ENGINE ? [attackerModel] : [],
  components: (spec) => [AGENTS.record(spec.agent ?? 'prompt')],
  plan: planForgedReasoningRun,
  run: runForgedReasoningExperiment,
  exitRule: endingAsExit,
};
