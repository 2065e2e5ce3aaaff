// The follow-up experiment registry: adding one is a file beside this one plus a line here.
import type { FollowUpExperimentId } from '../follow-up-log.js';
import type { FollowUpExperiment } from './experiment.js';
import { propagationExperiment } from './propagation.js';
import { toolsExperiment } from './tools.js';
import { writebackExperiment } from './writeback.js';

export const FOLLOW_UP_EXPERIMENTS: Readonly<Record<FollowUpExperimentId, FollowUpExperiment>> = {
  writeback: writebackExperiment as unknown as FollowUpExperiment,
  propagation: propagationExperiment as unknown as FollowUpExperiment,
  tools: toolsExperiment as unknown as FollowUpExperiment,
};

/** `grid` is the main grid; the others are the follow-up experiments. */
export const EXPERIMENT_IDS = ['grid', 'writeback', 'propagation', 'tools'] as const;
export type ExperimentId = (typeof EXPERIMENT_IDS)[number];
