// The guard axis: the stale-retrieval guard off and/or on top of every arm (`--guard off,on`).
import type { AxisV1 } from './axis-v1.js';

export const guardAxis = {
  specificationVersion: 'axis-v1',
  id: 'guard',
  defence: 'guard',
  phases: ['grid', 'follow-up'],
  stored: 'always',
  usage: ['run every arm without and/or with the stale-retrieval guard on its context'],
} as const satisfies AxisV1;
