// Acceptance (issue #27): a throwaway run kind added as one file plus its registry line (an import and an entry) is
// verified and reported by `pnpm report` on a copy of the source tree, with no other edit; unregistered, it is refused.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { SuiteReportV1, SuiteUnit, SuiteV1 } from '../../pipeline/run/suite.js';
import { runSuite } from '../../pipeline/suites/run-suite.js';
import { copySourceTree, type CommandResult, type SourceCopy } from '../../pipeline/test-support/source-copy.js';
import { main as report } from '../report-command.js';
import { main as verifyRun } from '../verify-run-command.js';

/** The one file: the `cubes` runs' scorecard from their summary.json, and their units' viewer sections. */
const KIND_FILE = `// A throwaway run kind (test only): the cubes suite's runs, rendered from their summary.json.
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';

const totalOf = (summary: unknown) => (summary as { total: number }).total;

export const cubesRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'cubes',
  suiteReport: {
    suite: 'cubes',
    render: (summary) => ({ 'cubes.md': \`cubes: total \${totalOf(summary)}\\n\` }),
    text: (summary) => \`cubes scorecard: total \${totalOf(summary)}\`,
  },
  viewer: { index: 'generic', sections: (row) => \`<p>cube \${JSON.stringify(row)}</p>\` },
};
`;

/** The registry line: the entry before the list's closing line, and its import. */
const REGISTRY_LINE = {
  importLine: "import { cubesRunKind } from '../cubes/run-kind.js';",
  entry: '  cubesRunKind,',
  before: '];',
};

/** A suite the test runs through the one runner (pipeline/suites/run-suite.ts); nothing of it is registered. */
interface Summary {
  total: number;
  units: number;
}
const cubesReport: SuiteReportV1<Summary> = {
  suite: 'cubes',
  render: () => ({}),
  text: () => '',
};
const cubes: SuiteV1<{ n: number }, SuiteUnit & { i: number }, { cube: number }, Summary> = {
  specificationVersion: 'v1',
  id: 'cubes',
  args: z.object({ n: z.number().int().positive() }),
  plan: ({ n }) => Array.from({ length: n }, (_, i) => ({ id: `cube/${i}`, cell: i % 2 ? 'odd' : 'even', i })),
  runUnit: async (unit) => ({ cube: unit.i ** 3 }),
  summarize: (records) => ({ total: records.reduce((sum, r) => sum + r.cube, 0), units: records.length }),
  exitCode: () => 0,
  report: cubesReport,
};
const silent = () => undefined;
const shown = (result: CommandResult) => `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-2000)}`;

describe('a run kind registered with one file and one registry line', () => {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-run-kind-'));
  let copy: SourceCopy;
  let runDir: string;
  let tampered: string;

  beforeAll(async () => {
    runDir = join(out, 'cubes');
    tampered = join(out, 'tampered');
    for (const dir of [runDir, tampered])
      await runSuite(cubes, { args: { n: 4 }, runDir: dir, command: 'test', log: silent });
    // One stored record edited after the fact: the chain no longer verifies.
    const records = join(tampered, 'records.jsonl');
    writeFileSync(records, readFileSync(records, 'utf8').replace('"cube":27', '"cube":28'));
    copy = copySourceTree();
    mkdirSync(join(copy.dir, 'analysis', 'cubes')); // the kind's own folder, as analysis/<kind>/ for every kind
    copy.addFile('analysis/cubes/run-kind.ts', KIND_FILE);
    copy.addRegistryLine('analysis/run-kinds/index.ts', REGISTRY_LINE);
  }, 120_000);
  afterAll(() => {
    copy?.remove();
    rmSync(out, { recursive: true, force: true });
  });

  it('is refused while unregistered (this checkout), and the run itself verifies', async () => {
    const printed: string[] = [];
    expect(await report([runDir], silent, (line) => printed.push(line))).toBe(1);
    expect(printed.join('\n')).toContain('no report is registered for suite cubes');
    expect(verifyRun([runDir], silent, silent)).toBe(0);
  });

  it('type-checks, then pnpm report verifies the run and writes its scorecard', async () => {
    const typecheck = await copy.typecheck();
    expect(typecheck.code, shown(typecheck)).toBe(0);
    const result = await copy.run('report', [runDir]);
    expect(result.code, shown(result)).toBe(0);
    expect(result.stdout).toContain('cubes scorecard: total 36'); // 0 + 1 + 8 + 27
    expect(readFileSync(join(runDir, 'report', 'cubes.md'), 'utf8')).toBe('cubes: total 36\n');
  }, 300_000);

  it('refuses a run of the registered kind whose log does not verify', async () => {
    const result = await copy.run('report', [tampered]);
    expect(result.code, shown(result)).toBe(1);
    expect(result.stderr).toContain('does not verify');
  }, 120_000);
});
