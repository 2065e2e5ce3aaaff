// Issue #31 item 3: the SARIF writer locates every result, maps levels to rules and GitHub's security severity, and
// fingerprints the cell only (not its numbers, message or where its results file lies).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sarifBase, sarifSource } from '../pipeline/run/sarif-file.js';
import { sarifLog } from './sarif.js';
import type { SarifFinding } from '../pipeline/index.js';

const finding = (level: SarifFinding['level'], system: string, message = `${system} acted`): SarifFinding => ({
  ruleId: 'stale-policy/mfa_waiver_access',
  ruleName: 'acted on a revoked policy (mfa_waiver_access)',
  help: 'help text',
  level,
  message,
  identity: { scenario: 'mfa_waiver_access', system },
});

interface Log {
  runs: {
    tool: { driver: { rules: { defaultConfiguration: { level: string }; properties: Record<string, unknown> }[] } };
    results: { level: string; locations: unknown[]; partialFingerprints: Record<string, string> }[];
  }[];
}
const tool = { name: 'stalebench eval', version: '0.0.0' };

describe('sarifLog', () => {
  it("gives a rule its worst finding's level and security severity; each result keeps its own level and a location", () => {
    const log = sarifLog(tool, [finding('note', 'graphiti'), finding('error', 'mem0')], 'runs/x/summary.json') as Log;
    const run = log.runs[0]!;
    expect(run.tool.driver.rules).toHaveLength(1);
    expect(run.tool.driver.rules[0]).toMatchObject({
      defaultConfiguration: { level: 'error' },
      properties: { tags: ['security'], 'security-severity': '8.0' },
    });
    expect(run.results.map((result) => result.level)).toEqual(['note', 'error']);
    expect(run.results[0]!.locations).toEqual([
      {
        physicalLocation: { artifactLocation: { uri: 'runs/x/summary.json' }, region: { startLine: 1 } },
        logicalLocations: [{ fullyQualifiedName: 'mfa_waiver_access/graphiti', kind: 'resource' }],
      },
    ]);
  });

  it('fingerprints the cell only: another rate, message or results file gives the same; another cell does not', () => {
    const print = (f: SarifFinding, source: string) =>
      (sarifLog(tool, [f], source) as Log).runs[0]!.results[0]!.partialFingerprints['stalebench/v1'];
    const first = print(finding('note', 'graphiti', '1/10 (10.0 %)'), 'runs/a/summary.json');
    expect(print(finding('error', 'graphiti', '9/10 (90.0 %)'), 'runs/b/summary.json')).toBe(first);
    expect(print(finding('note', 'mem0', '1/10 (10.0 %)'), 'runs/a/summary.json')).not.toBe(first);
    expect(print(finding('note', 'graphiti'), 'x')).not.toBe(
      (sarifLog({ ...tool, name: 'stalebench integrity' }, [finding('note', 'graphiti')], 'x') as Log).runs[0]!
        .results[0]!.partialFingerprints['stalebench/v1'],
    );
  });
});

describe('sarifBase', () => {
  it("is a GitHub Actions job's workspace (the action runs the suites from its own checkout), else the cwd", () => {
    expect(sarifBase({ GITHUB_WORKSPACE: '/home/runner/work/app/app' }, '/actions/stalebench')).toBe(
      '/home/runner/work/app/app',
    );
    expect(sarifBase({ GITHUB_WORKSPACE: '' }, '/work/repo')).toBe('/work/repo');
    expect(sarifBase({}, '/work/repo')).toBe('/work/repo');
  });
});

describe('sarifSource', () => {
  it('is a repository-relative path with / inside the working directory, a file URI outside it', () => {
    const base = join('/', 'work', 'repo');
    expect(sarifSource(join(base, 'runs', 'x', 'summary.json'), base)).toBe('runs/x/summary.json');
    expect(sarifSource(join('/', 'tmp', 'out', 'summary.json'), base)).toBe('file:///tmp/out/summary.json');
    expect(sarifSource(join(base, '..', 'repo-2', 'summary.json'), base)).toBe('file:///work/repo-2/summary.json');
  });
});
