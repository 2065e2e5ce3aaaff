// The throwaway defence "add a defence" adds (test only): one file, one line in the defence registry.
import type { SourcePart } from '../source-copy.js';

/**
 * The one file. It composes `prompt-hardening` as data, withholds the top-ranked record (a screen) and blocks every
 * unsafe decision (a post-decision step), so each stage leaves a trace and changes a number.
 */
const THROWAWAY_FILE = `// A throwaway defence (test only): hardening, the top-ranked record withheld, every unsafe decision blocked.
import type { DefenceV1, Review, ReviewInput, ScreenInput, ScreenVerdict } from './defence-v1.js';

export const throwawayDefence = {
  specificationVersion: 'v1',
  id: 'throwaway',
  label: 'throwaway screen',
  arm: { referenceName: 'throwaway' },
  uses: ['prompt-hardening'],
  create: () => ({
    screen: ({ records }: ScreenInput): ScreenVerdict => ({
      kept: records.slice(1).map((_, index) => index + 1),
      withheld: records.slice(0, 1).map((record) => ({ index: 0, text: record.text, reason: 'top-ranked', stage: 'throwaway' })),
      notes: [\`\${records.length} seen\`],
    }),
    review: async (input: ReviewInput): Promise<Review> => {
      const blocked = input.proposedAction === input.unsafeAction;
      return { outcome: blocked ? { kind: 'block' } : { kind: 'pass' }, trace: { blocked } };
    },
  }),
} as const satisfies DefenceV1;
`;

/** The registry line: the entry before the list's closing line, and its import. */
const REGISTRY_LINE = {
  importLine: "import { throwawayDefence } from './throwaway.js';",
  entry: '  throwawayDefence,',
  before: '] as const satisfies readonly DefenceV1[];',
};

/** One file and one registry line. */
export const THROWAWAY_DEFENCE: SourcePart = {
  name: 'a defence',
  files: [{ path: 'pipeline/defences/throwaway.ts', text: THROWAWAY_FILE }],
  registryLines: [{ file: 'pipeline/defences/index.ts', line: REGISTRY_LINE }],
};
