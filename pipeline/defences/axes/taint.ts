// The taint axis (issue #19): journals without and/or with provenance (`--taint off,on`), journal experiments only.
import type { AxisExperiment, AxisV1 } from './axis-v1.js';

export const taintAxis = {
  specificationVersion: 'axis-v1',
  id: 'taint',
  defence: 'taint',
  phases: ['follow-up'],
  stored: 'when-on',
  usage: ['writeback, propagation: journals without and/or with provenance (the taint defence)'],
  notApplicable: (experiment: AxisExperiment, experiments: readonly AxisExperiment[]) =>
    experiment.writesJournals
      ? null
      : `--taint on needs an experiment that writes journals (${experiments
          .filter((e) => e.writesJournals)
          .map((e) => e.id)
          .join(', ')}); ${experiment.id} writes none`,
} as const satisfies AxisV1;
