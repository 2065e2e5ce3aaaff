// The throwaway defence axis "add a defence axis" adds (test only): one file, one line in the axis registry.
import type { SourcePart } from '../source-copy.js';

/** The prefix the throwaway axis's defence puts in front of the system message. */
export const HEDGE_PREFIX = 'Hedge: re-read every fact before acting.\n';

/**
 * The one file: an axis that defines its own defence (a system-message prefix and a post-decision step that blocks
 * every unsafe decision), so each stage leaves a trace and changes a number.
 */
const AXIS_FILE = `// A throwaway axis (test only): --hedge off,on adds a hedging prefix and blocks every unsafe decision.
import type { DefenceV1, Review, ReviewInput } from '../defence-v1.js';
import type { AxisV1 } from './axis-v1.js';

const hedgeDefence = {
  specificationVersion: 'v1',
  id: 'hedge',
  label: 'hedge gate',
  arm: null,
  uses: [],
  create: () => ({
    systemPrefix: ${JSON.stringify(HEDGE_PREFIX)},
    review: async (input: ReviewInput): Promise<Review> => {
      const blocked = input.proposedAction === input.unsafeAction;
      return { outcome: blocked ? { kind: 'block' } : { kind: 'pass' }, trace: { blocked } };
    },
  }),
} as const satisfies DefenceV1;

export const hedgeAxis = {
  specificationVersion: 'axis-v1',
  id: 'hedge',
  defence: hedgeDefence,
  phases: ['grid'],
  stored: 'when-on',
  usage: ['run every arm without and/or with the hedge gate (test only)'],
} as const satisfies AxisV1;
`;

/** The registry line: the entry in AXES (before its closing), and its import. */
const REGISTRY_LINE = {
  importLine: "import { hedgeAxis } from './hedge.js';",
  entry: '  hedgeAxis,',
  before: '] as const satisfies readonly AxisV1[];',
};

/** One file and one registry line. */
export const HEDGE_AXIS: SourcePart = {
  name: 'a defence axis',
  files: [{ path: 'pipeline/defences/axes/hedge.ts', text: AXIS_FILE }],
  registryLines: [{ file: 'pipeline/defences/axes/index.ts', line: REGISTRY_LINE }],
};
