// The PoEM axis: the proof-of-execution gate off and/or on for every decision (`--poem off,on`).
import type { AxisV1 } from './axis-v1.js';

export const poemAxis = {
  specificationVersion: 'axis-v1',
  id: 'poem',
  defence: 'poem',
  phases: ['grid', 'follow-up'],
  stored: 'always',
  summary: 'the proof-of-execution gate off and/or on for every decision',
} as const satisfies AxisV1;
