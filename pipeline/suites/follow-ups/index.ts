// The follow-up experiments' steps, bound to their declaration lines in pipeline/run/experiments.ts: adding one is a file
// beside this one, a line there and a line here (the mapped type refuses a missing or an extra id).
import type { FollowUpExperimentId } from '../../run/experiments.js';
import { followUpSteps, isExploitScenario, isPolicyScenario, type FollowUpSteps } from './experiment.js';
import { propagationExperiment } from './propagation.js';
import { toolsExperiment } from './tools.js';
import { writebackExperiment } from './writeback.js';

export const FOLLOW_UP_EXPERIMENTS: { readonly [Id in FollowUpExperimentId]: FollowUpSteps } = {
  writeback: followUpSteps(writebackExperiment, isPolicyScenario),
  propagation: followUpSteps(propagationExperiment, isPolicyScenario),
  tools: followUpSteps(toolsExperiment, isExploitScenario),
};
