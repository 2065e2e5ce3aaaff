// `pnpm report`: acceptance on a direct-mode sim run of all six systems, follow-up runs, and bad input (exit 1).
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { specFromArgs } from '../pipeline/cli/cli.js';
import type { ProbeRecord } from '../pipeline/run-log/run-log.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { PAPER_SCENARIO_IDS } from '../scenarios/test-support/paper-scenarios.js';
import type { DiffCell, PaperDiff } from './paper-table.js';
import { main } from './report-command.js';

const ALL_SYSTEMS = 'graphiti,mem0,mem0-exp,langmem,cognee,zep-ce';
const ALL_ARMS = 'none,store-filter,prompt-hardening,output-filter,filter-hardening,guard';

async function simRun(args: string[]): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-report-'));
  const spec = specFromArgs(['--model', 'sim', '--trials', '1', '--no-cache', '-o', out, ...args], {});
  return (await runEvaluation(spec, { apiKey: undefined })).runDir;
}

async function report(argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(
    argv,
    (line) => stdout.push(line),
    (line) => stderr.push(line),
  );
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

const probesOf = (runDir: string) =>
  readFileSync(join(runDir, 'setup.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ProbeRecord);

describe('pnpm report <direct-mode sim run of all systems> --paper', () => {
  let runDir: string;
  let result: Awaited<ReturnType<typeof report>>;
  let diff: PaperDiff;
  const at = (table: string, row: string, column: string) =>
    diff.cells.find((c) => c.table === table && c.row === row && c.column === column)!;

  beforeAll(async () => {
    // The paper's nine scenarios (stale-retrieval.md §4): the published cells this run is diffed against count them.
    runDir = await simRun([
      '--systems',
      ALL_SYSTEMS,
      '--modes',
      'direct',
      '--arms',
      ALL_ARMS,
      '--scenarios',
      PAPER_SCENARIO_IDS.join(','),
    ]);
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(() => {
      throw new Error('network disabled in this test');
    });
    result = await report([runDir, '--paper']);
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
    diff = JSON.parse(readFileSync(join(runDir, 'report', 'paper-diff.json'), 'utf8')) as PaperDiff;
  }, 120_000);

  it('exits 0, writes every output into <run>/report and prints the Markdown', () => {
    expect(result.code, result.stderr).toBe(0);
    for (const file of ['tables.md', 'tables.csv', 'tables.tex', 'paper-diff.md', 'paper-diff.json', 'index.html'])
      expect(existsSync(join(runDir, 'report', file)), file).toBe(true);
    expect(result.stdout).toContain(readFileSync(join(runDir, 'report', 'tables.md'), 'utf8'));
    expect(result.stdout).toContain('## Table 6: Single read, direct insertion');
    expect(readFileSync(join(runDir, 'report', 'index.html'), 'utf8')).toContain('sim (simulated)');
  });

  it("reproduces every exposure cell of Tables 6 and 13 exactly, per model (9/9 per model = the paper's 81/81 over 9 models)", () => {
    const exposure = diff.cells.filter((c) => (c.table === '6' || c.table === '13') && c.column === 'exposure');
    expect(exposure).toHaveLength(7);
    for (const c of exposure) expect(c, `${c.table} ${c.row}`).toMatchObject({ verdict: 'match', basis: 'per-model' });
    // Independent of the table builder: the exposed probes in setup.jsonl.
    const exposed = (system: string) =>
      probesOf(runDir).filter((p) => p.system === system && p.exposure?.exposed).length;
    expect(at('6', 'graphiti', 'exposure').ours).toMatchObject({ k: exposed('graphiti'), n: 9, models: 1 });
    expect(at('13', 'expired returned', 'exposure').ours).toMatchObject({ k: exposed('mem0-exp'), n: 9 });
    expect(at('13', 'expired filtered (default)', 'exposure').ours).toMatchObject({ k: 0, n: 9 });
  });

  it('compares the rank exactly: "–" where no revoked record came back, the mean rank where one did', () => {
    for (const row of ['cognee', 'langmem', 'mem0']) expect(at('6', row, 'rank')).toMatchObject({ verdict: 'match' });
    for (const [row, system] of [
      ['graphiti', 'graphiti'],
      ['mem0 (exp.)', 'mem0-exp'],
    ] as const) {
      const ranks = probesOf(runDir)
        .filter((p) => p.system === system)
        .map((p) => p.exposure!.revokedRank!);
      const mean = ranks.reduce((a, b) => a + b, 0) / ranks.length;
      expect(at('6', row, 'rank').ours?.value).toBeCloseTo(mean, 12);
      // The paper prints rank 1; the offline lexical embedder ranks v2 first for some scenarios, and the diff says so.
      expect(at('6', row, 'rank').verdict).toBe(mean === 1 ? 'match' : 'differs');
    }
  });

  it("Table 9 (direct): zero-revoked rows match exactly; caught and current-withheld rates match where the paper's logged denominators differ", () => {
    const direct = diff.cells.filter((c) => c.table === '9' && c.column.endsWith('(direct)') && c.row !== 'zep');
    expect(direct).toHaveLength(15);
    const differing = direct.filter((c) => c.verdict !== 'match').map((c) => `${c.row}: ${c.column}`);
    expect(differing.sort()).toEqual([
      'graphiti: caught (direct)',
      'graphiti: current withheld (direct)',
      'graphiti: revoked present (direct)',
      'mem0 (exp.): caught (direct)',
      'mem0 (exp.): current withheld (direct)',
      'mem0 (exp.): revoked present (direct)',
      'mem0: current withheld (direct)',
    ]);
    for (const c of direct.filter((c) => c.verdict !== 'match')) {
      expect(c.verdict).toBe('differs');
      expect(c.note).toMatch(/re-probed/);
      if (c.paper.n !== undefined) expect(c.sameRate, `${c.row} ${c.column}`).toBe(true);
    }
    // One pass logs each exposed system's nine revoked records; the paper's 18 and 12 accumulate re-probes (spec §11).
    expect(at('9', 'graphiti', 'caught (direct)').ours).toMatchObject({ k: 9, n: 9 });
    expect(at('9', 'mem0 (exp.)', 'caught (direct)').ours).toMatchObject({ k: 9, n: 9 });
    expect(at('9', 'cognee', 'current withheld (direct)')).toMatchObject({
      verdict: 'match',
      basis: 'exact',
      ours: { k: 0, n: 19 },
    });
  });

  it("Zep's direct cells are n/a (it cannot express direct mode), never a match; retrieval-only cells name the embedder", () => {
    for (const column of ['revoked present (direct)', 'caught (direct)', 'current withheld (direct)']) {
      expect(at('9', 'zep', column)).toMatchObject({ verdict: 'n/a', ours: { status: 'n/a', unsupported: true } });
    }
    expect(diff.counts.modelIndependent.notApplicable).toBe(3);
    for (const c of diff.cells.filter((c) => c.dependence === 'model-independent' && c.ours && c.verdict !== 'n/a'))
      expect(c.note, `${c.table} ${c.row} ${c.column}`).toMatch(/ours from embedder lexical/);
    expect(readFileSync(join(runDir, 'report', 'paper-diff.md'), 'utf8')).toMatch(
      /\| 9 \| zep \| caught \(direct\) \| 0\/0 \| n\/a \| – \| n\/a \|/,
    );
  });

  it('shows every model-dependent cell side by side, labelled sim, and never as a match', () => {
    const dependent = diff.cells.filter((c) => c.dependence === 'model-dependent');
    expect(dependent.every((c) => c.verdict === 'side-by-side' || c.verdict === 'missing')).toBe(true);
    expect(diff.simulated).toBe(true);
    const graphiti: DiffCell = at('6', 'graphiti', 'no defense');
    expect(graphiti).toMatchObject({ verdict: 'side-by-side', ours: { n: 9 }, note: expect.stringMatching(/^sim/) });
    expect(typeof graphiti.intervalsOverlap).toBe('boolean');
    expect(result.stdout).toContain('# Paper diff (arXiv 2609.08258v1) — sim (simulated)');
    expect(result.stdout).toMatch(
      /\| 6 \| graphiti \| no defense \| 358\/810 \(44\.2%\) \[40\.8, 47\.6\] \| \d\/9 \([\d.]+%\) \[[\d.]+, [\d.]+\] \| (yes|no) \| side by side \(sim\) \|/,
    );
    expect(result.stdout).toContain('| ours (sim) [Wilson 95 %]');
    // Table 12's p-values come from the run, not from the paper.
    expect(at('12', 'graphiti vs mem0 (exp.)', 'exact p').ours?.value).not.toBe(0.629);
  });

  it('says sim in every table title and the model column, and writes one CSV line per cell', () => {
    const markdown = readFileSync(join(runDir, 'report', 'tables.md'), 'utf8');
    const titles = markdown.split('\n').filter((line) => line.startsWith('## Table'));
    expect(titles.map((t) => t.split(':')[0])).toEqual([
      '## Table 6',
      '## Table 7',
      '## Table 8/11',
      '## Table 9',
      '## Table 12',
      '## Table 13',
    ]);
    for (const title of titles) expect(title).toMatch(/sim \(simulated\)$/);
    expect(markdown).toMatch(/^\| sim \(simulated\) \| \d+\/18 /m);
    const csv = readFileSync(join(runDir, 'report', 'tables.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'table,row,column,k,n,rate,low,high,value,dependence,status,reason,simulated,parse_failures,errors,unsafe_among_parsed_k,unsafe_among_parsed_n,unsafe_among_parsed_rate,embedder,model_group,caveats',
    );
    const simulatedColumn = csv[0]!.split(',').indexOf('simulated');
    expect(csv.slice(1).every((line) => line.split(',')[simulatedColumn] === 'true' || line.includes('"'))).toBe(true);
    expect(readFileSync(join(runDir, 'report', 'tables.tex'), 'utf8')).toContain(
      '\\caption{Table 6: Single read, direct insertion: exposure, rank and unsafe-action rate per system and defence --- sim (simulated)}',
    );
  });
});

describe('pnpm report with follow-up runs and -o', () => {
  it('builds Table 15 from a propagation run next to a grid run, into the directory given', async () => {
    const scenarios = ['--scenarios', 'privilege_escalation_deploy_approval,guardrail_bypass_disclose_card'];
    const grid = await simRun(['--systems', 'graphiti', '--modes', 'direct', '--arms', 'none', ...scenarios]);
    const propagation = await simRun(['--experiment', 'propagation', '--systems', 'graphiti', ...scenarios]);
    const out = mkdtempSync(join(tmpdir(), 'stalebench-report-out-'));
    const result = await report([grid, propagation, '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    const markdown = readFileSync(join(out, 'tables.md'), 'utf8');
    expect(markdown).toContain('## Table 15: Multi-agent propagation');
    expect(markdown).toMatch(/^\| shared, default \| \d\/2 /m);
    expect(markdown).toMatch(/^\| shared, filtered \| 0\/2 /m);
    expect(existsSync(join(out, 'paper-diff.md'))).toBe(false);
    expect(existsSync(join(out, 'index.html'))).toBe(true);
  }, 120_000);
});

describe('pnpm report: usage and bad input exit 1 with one clear error', () => {
  let runDir: string;
  beforeAll(async () => {
    runDir = await simRun([
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none',
      '--scenarios',
      'privilege_escalation_deploy_approval',
    ]);
  }, 60_000);
  const copy = () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-report-bad-'));
    cpSync(runDir, dir, { recursive: true });
    return dir;
  };

  it('without a run directory, or with an unknown flag', async () => {
    expect((await report([])).code).toBe(1);
    const unknown = await report([runDir, '--nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--nope/);
    expect((await report(['--help'])).code).toBe(0);
  });

  it('names the missing manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-report-empty-'));
    const result = await report([dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(join(dir, 'manifest.json'));
    expect(result.stderr).toMatch(/missing; .* is not a run directory/);
  });

  it('names the file, line and field of a bad unit record', async () => {
    const dir = copy();
    const path = join(dir, 'records.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    const record = JSON.parse(lines[0]!);
    delete record.key.system;
    lines[0] = JSON.stringify(record);
    writeFileSync(path, lines.join('\n'));
    // The edit breaks the hash chain: refused before any field is read, naming the line.
    const refused = await report([dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the run log does not verify: records\.jsonl:1: .*edited.*--no-verify/);
    const result = await report([dir, '--no-verify']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`invalid ${path}`);
    expect(result.stderr).toMatch(/line 1: key\.system: .*expected string/);
  });

  it('names the manifest field that is wrong, and refuses the same run given twice', async () => {
    const dir = copy();
    const path = join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(path, 'utf8'));
    manifest.spec.modes = ['sideways'];
    writeFileSync(path, JSON.stringify(manifest));
    // The spec is bound (its sha256 in manifest.json's bound, issue #26): refused before any field is read.
    const refused = await report([dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the run log does not verify: manifest\.json: spec edited.*--no-verify/);
    const result = await report([dir, '--no-verify']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`invalid ${path}`);
    expect(result.stderr).toMatch(/spec\.modes\.0: /);
    const twice = await report([runDir, copy()]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/given twice would be counted twice/);
  });
});
