// The throwaway suite "add a suite" adds (test only): one folder with its SuiteV1 file, one line in the suite registry.
import type { SourcePart } from '../source-copy.js';

/** The one file of the folder: a suite that squares numbers, each unit a cell of its parity. */
const SUITE_FILE = `// A throwaway suite (test only): squares 0 … n-1, one unit each; fails when the total passes --max.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { SuiteV1 } from '../../run/suite.js';

const args = z.object({ n: z.number().int().positive(), max: z.number().optional(), label: z.string().default('sq') });
type Args = z.infer<typeof args>;
interface Summary {
  label: string;
  total: number;
  squares: number[];
}

export const squaresSuite: SuiteV1<Args, { id: string; cell: string; i: number }, { square: number }, Summary> = {
  specificationVersion: 'v1',
  id: 'squares',
  args,
  plan: ({ n }) => Array.from({ length: n }, (_, i) => ({ id: \`sq/\${i}\`, cell: i % 2 ? 'odd' : 'even', i })),
  async runUnit(unit) {
    return { square: unit.i * unit.i };
  },
  summarize: (records, a) => ({
    label: a.label,
    total: records.reduce((sum, r) => sum + r.square, 0),
    squares: records.map((r) => r.square),
  }),
  exitCode: (summary, a) => (a.max !== undefined && summary.total > a.max ? 1 : 0),
  report: {
    suite: 'squares',
    render: (summary) => ({ 'squares.md': \`# \${summary.label}\\n\\ntotal \${summary.total}\\n\` }),
    text: (summary) => \`\${summary.label} total \${summary.total}\`,
  },
  // Offered to CI (the stalebench action, --sarif): one finding per odd square.
  ci: {
    gate: { metrics: ['odd'], fields: ['cell'], keywords: { odd: 'odd > 0' } },
    exitMeanings: { 0: 'total within --max', 1: 'total above --max, or a usage error' },
    readSummary: (path) => JSON.parse(readFileSync(path, 'utf8')) as Summary,
    findings: (summary) =>
      summary.squares.flatMap((square, i) =>
        square % 2
          ? [{ ruleId: 'squares/odd', ruleName: 'Odd square', help: 'An odd number squared is odd.', level: 'note' as const,
               message: \`\${i} squared is \${square}\`, identity: { unit: \`sq/\${i}\` } }]
          : [],
      ),
  },
};
`;

const REGISTRY_LINE = {
  importLine: "import { squaresSuite } from './squares/suite.js';",
  entry: '  squares: () => squaresSuite,',
  before: '};',
};

/** One folder (its suite file) and one registry line. */
export const SQUARES_SUITE: SourcePart = {
  name: 'a suite',
  files: [{ path: 'pipeline/suites/squares/suite.ts', text: SUITE_FILE }],
  registryLines: [{ file: 'pipeline/suites/index.ts', line: REGISTRY_LINE }],
};
