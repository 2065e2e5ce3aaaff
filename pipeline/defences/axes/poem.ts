// The PoEM axis: the proof-of-execution gate off and/or on for every decision (`--poem off,on`).
import type { AxisV1 } from './axis-v1.js';

export const poemAxis = {
  specificationVersion: 'axis-v1',
  id: 'poem',
  defence: 'poem',
  phases: ['grid', 'follow-up'],
  stored: 'always',
  usage: [
    'run every arm without and/or with the proof-of-execution gate on its decisions',
    '(ledger key: STALEBENCH_LEDGER_KEY, hex; default a fresh key per process)',
  ],
} as const satisfies AxisV1;
