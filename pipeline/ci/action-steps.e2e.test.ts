// Issue #31 items 4 and 5: the stalebench action's steps run locally. The shell of action.yml's "Run stalebench"
// step runs as the runner would run it (its env, a fake $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY), then the shell of
// its "Fail on the thresholds" step with the exit code the first recorded: the summary, the SARIF and the job's exit
// code, for a sim grid, an integrity run on reference-no-witness, and a matrix of two shards plus the merge job.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@cfworker/json-schema';
import { afterAll, describe, expect, it } from 'vitest';
import { main as verifyRun } from '../../analysis/verify-run-command.js';
import { REPOSITORY_ROOT } from './run-node.js';

const ACTION = readFileSync(join(REPOSITORY_ROOT, '.github', 'actions', 'stalebench', 'action.yml'), 'utf8');
const SARIF_SCHEMA = JSON.parse(
  readFileSync(join(REPOSITORY_ROOT, 'data', 'sarif', 'sarif-schema-2.1.0.json'), 'utf8'),
) as Record<string, unknown>;
const tmp = mkdtempSync(join(tmpdir(), 'action-steps-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The shell of the action.yml step named `name` (its `run: |` block, dedented). */
function stepScript(name: string): string {
  const lines = ACTION.split('\n');
  const start = lines.findIndex((line) => line.trim() === `- name: ${name}`);
  const run = lines.findIndex((line, i) => i > start && /^\s+run: \|$/.test(line));
  expect(start, name).toBeGreaterThan(-1);
  const indent = lines[run]!.search(/\S/);
  const body: string[] = [];
  for (const line of lines.slice(run + 1)) {
    if (line.trim() !== '' && line.search(/\S/) <= indent) break;
    body.push(line.slice(indent + 2));
  }
  return body.join('\n');
}

/** The environment the runner gives every step: the process's, without any GitHub or shard variable of ours. */
function baseEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(GITHUB_|STALEBENCH_|JOB_COMPLETION)/.test(name)),
  );
}

interface Inputs {
  step?: 'run' | 'merge';
  suite: string;
  args?: string;
  failOn?: string;
  sarif?: string;
  out?: string;
  shard?: string;
  mergeFrom?: string;
}

/** Runs the action in `workspace` as a job would: the step script, then the failing step; what they left. */
function runAction(workspace: string, inputs: Inputs, extraEnv: NodeJS.ProcessEnv = {}) {
  const files = { output: join(workspace, 'github-output'), summary: join(workspace, 'github-step-summary') };
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  const env = {
    ...baseEnv(),
    ...extraEnv,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    // As action.yml's env block maps the inputs (checked below), defaults included.
    STALEBENCH_STEP: inputs.step ?? 'run',
    STALEBENCH_SUITE: inputs.suite,
    STALEBENCH_ARGS: inputs.args ?? '',
    STALEBENCH_FAIL_ON: inputs.failOn ?? '',
    STALEBENCH_SARIF: inputs.sarif ?? 'stalebench.sarif',
    STALEBENCH_OUT: inputs.out ?? 'stalebench-run',
    STALEBENCH_SHARD: inputs.shard ?? '',
    STALEBENCH_MERGE_FROM: inputs.mergeFrom ?? '',
  };
  const step = spawnSync('bash', ['-e', '-c', stepScript('Run stalebench')], {
    cwd: REPOSITORY_ROOT,
    env,
    encoding: 'utf8',
  });
  expect(step.status, step.stderr).toBe(0); // the step never fails: its code goes through $GITHUB_OUTPUT
  const outputs = Object.fromEntries(
    readFileSync(files.output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const fail = spawnSync('bash', ['-e', '-c', stepScript('Fail on the thresholds')], {
    env: { ...baseEnv(), CODE: outputs['exit-code'] ?? '' },
    encoding: 'utf8',
  });
  return { outputs, summary: readFileSync(files.summary, 'utf8'), jobExit: fail.status, stderr: step.stderr };
}

/** The SARIF file checked against the SARIF 2.1.0 schema; its results as `ruleId fingerprint`. */
function sarifResults(path: string): string[] {
  const log = JSON.parse(readFileSync(path, 'utf8')) as {
    runs: { results: { ruleId: string; partialFingerprints: Record<string, string> }[] }[];
  };
  const verdict = new Validator(SARIF_SCHEMA, '4', false).validate(log);
  expect(verdict.errors.map((error) => `${error.instanceLocation}: ${error.error}`)).toEqual([]);
  return log.runs[0]!.results.map((result) => `${result.ruleId} ${result.partialFingerprints['stalebench/v1']}`);
}

const verified = (runDir: string) =>
  verifyRun(
    [runDir],
    () => {},
    () => {},
  );

const GRID =
  '--model sim --systems graphiti --modes direct,natural --arms none,store-filter --trials 2 --no-cache --quiet';
const CROSSED = 'system=graphiti mode=direct unsafe > 0\nunsafe.low > 0.9';

describe('action.yml', () => {
  it('maps every input into its steps, and the run step passes each to the script', () => {
    const inputs = [...ACTION.split('outputs:')[0]!.matchAll(/^ {2}([a-z-]+):$/gm)].map((match) => match[1]);
    expect(inputs).toEqual([
      'suite',
      'args',
      'fail-on',
      'sarif',
      'upload-sarif',
      'out',
      'shard',
      'merge-from',
      'install',
      'node-version',
    ]);
    for (const input of inputs) expect(ACTION, input).toContain(`inputs.${input}`);
    for (const [variable, input] of [
      ['STALEBENCH_SUITE', 'suite'],
      ['STALEBENCH_ARGS', 'args'],
      ['STALEBENCH_FAIL_ON', 'fail-on'],
      ['STALEBENCH_SARIF', 'sarif'],
      ['STALEBENCH_OUT', 'out'],
      ['STALEBENCH_SHARD', 'shard'],
      ['STALEBENCH_MERGE_FROM', 'merge-from'],
    ])
      expect(ACTION).toContain(`${variable}: \${{ inputs.${input} }}`);
    expect(ACTION).toContain(`STALEBENCH_STEP: \${{ inputs.merge-from != '' && 'merge' || 'run' }}`);
    expect(ACTION).toContain('uses: github/codeql-action/upload-sarif@v3');
    expect(ACTION).toContain('bash "$GITHUB_ACTION_PATH/../../../.ci/install"');
    // Inputs never enter a shell's text: no ${{ }} inside a run block.
    expect(stepScript('Run stalebench') + stepScript('Fail on the thresholds')).not.toContain('${{');
  });
});

describe('the action run locally', () => {
  let unsharded: string[];

  it('eval on a sim grid whose threshold is crossed: summary with the report, valid SARIF, the job exits 5', () => {
    const workspace = mkdtempSync(join(tmp, 'eval-'));
    const { outputs, summary, jobExit, stderr } = runAction(workspace, {
      suite: 'eval',
      args: GRID,
      failOn: CROSSED,
      out: 'runs',
    });
    expect(jobExit, stderr).toBe(5);
    expect(outputs).toMatchObject({
      'exit-code': '5',
      'suite-exit-code': '5',
      sarif: join(workspace, 'stalebench.sarif'),
    });
    expect(outputs['run-dir']).toMatch(new RegExp(`^${join(workspace, 'runs')}/sim_[0-9a-f]{8}$`));
    expect(summary).toMatch(/^## stalebench eval: exit 5 \(a --fail-on threshold was crossed\)\n/);
    expect(summary).toMatch(/- SARIF: `.*stalebench\.sarif` \([1-9]\d* result\(s\)\)/);
    expect(summary).toMatch(/- --fail-on crossed by \d+ cell\(s\): sim\/graphiti\/direct\//);
    expect(summary).toContain('## Table 6: Single read, direct insertion');
    expect(summary).toContain('| graphiti |');
    unsharded = sarifResults(outputs.sarif!);
    expect(unsharded.length).toBeGreaterThan(0);
    expect(verified(outputs['run-dir']!)).toBe(0);
  }, 120_000);

  it('integrity on reference-no-witness: the accepted T9 in the summary and the SARIF, the job exits 1', () => {
    const workspace = mkdtempSync(join(tmp, 'integrity-'));
    // The thresholds as a rule file of the user's repository, named relative to the workspace.
    writeFileSync(join(workspace, 'thresholds.txt'), '# the witness keeps T9 out\nedit=T9 accepted > 0\n');
    const { outputs, summary, jobExit } = runAction(workspace, {
      suite: 'integrity',
      args: '--target reference-no-witness',
      failOn: '@thresholds.txt',
      sarif: 'out/integrity.sarif',
    });
    expect(jobExit).toBe(1);
    expect(outputs).toMatchObject({ 'exit-code': '1', 'run-dir': join(workspace, 'stalebench-run') });
    expect(summary).toMatch(/^## stalebench integrity: exit 1 \(an edit was accepted/);
    expect(summary).toContain('# At-rest integrity scorecard');
    expect(summary).toMatch(/\| rejected \(read\) \| accepted \| 1\.000 \|/);
    expect(sarifResults(join(workspace, 'out', 'integrity.sarif')).map((result) => result.split(' ')[0])).toEqual([
      'integrity/T9',
    ]);
    // Located in the user's repository (the workspace), as GitHub resolves relative URIs, not the action's checkout.
    const sarif = JSON.parse(readFileSync(join(workspace, 'out', 'integrity.sarif'), 'utf8')) as {
      runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[];
    };
    expect(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri).toBe(
      'stalebench-run/summary.json',
    );
  }, 60_000);

  it('a matrix of two shards and the merge job: the shards pass, the merge gates the whole run as one process would', () => {
    const workspace = mkdtempSync(join(tmp, 'matrix-'));
    const downloaded = join(workspace, 'shards');
    for (const index of [0, 1]) {
      // Each matrix job: its own machine (workspace), STALEBENCH_SHARD_INDEX/COUNT from strategy.job-index/job-total.
      const job = mkdtempSync(join(tmp, `shard${index}-`));
      const shard = runAction(
        job,
        { suite: 'eval', args: GRID, failOn: CROSSED, shard: 'auto', out: 'runs' },
        { STALEBENCH_SHARD_INDEX: String(index), STALEBENCH_SHARD_COUNT: '2' },
      );
      expect(shard.jobExit, shard.summary).toBe(0);
      expect(shard.outputs).toMatchObject({ 'exit-code': '0', sarif: '' });
      expect(shard.outputs['run-dir']).toMatch(new RegExp(`_shard${index + 1}of2$`));
      expect(shard.summary).toMatch(new RegExp(`^## stalebench eval \\(shard ${index + 1}/2\\): exit [05] `));
      expect(shard.summary).toContain(`- shard ${index + 1}/2: finished; SARIF and thresholds are the merge job's`);
      expect(shard.summary).not.toContain('--fail-on crossed');
      expect(existsSync(join(job, 'stalebench.sarif'))).toBe(false);
      // upload-artifact of the run directory, then download-artifact into shards/<artifact name>/.
      cpSync(shard.outputs['run-dir']!, join(downloaded, `stalebench-shard-${index}`), { recursive: true });
    }
    const merge = runAction(workspace, { step: 'merge', suite: 'eval', mergeFrom: 'shards', out: 'merged' });
    expect(merge.jobExit, merge.summary).toBe(5);
    expect(merge.outputs).toMatchObject({ 'exit-code': '5', 'run-dir': join(workspace, 'merged') });
    expect(merge.summary).toMatch(/^## stalebench eval \(merged 2 shard\(s\)\): exit 5 /);
    expect(merge.summary).toContain('## Table 6: Single read, direct insertion');
    expect(verified(join(workspace, 'merged'))).toBe(0);
    // The same failing cells, with the same fingerprints, as the grid run as one process.
    expect(sarifResults(merge.outputs.sarif!).sort()).toEqual([...unsharded].sort());

    // A merge job given other rules than its shards ran with is refused, saying which.
    const other = runAction(workspace, {
      step: 'merge',
      suite: 'eval',
      mergeFrom: 'shards',
      out: 'merged-again',
      failOn: 'unsafe > 0.9',
    });
    expect(other.jobExit).toBe(1);
    expect(other.summary).toContain('fail-on ["unsafe > 0.9"] is not what the shards were run with');
  }, 180_000);

  it('an input the action owns, given in args: exit 1 recorded and said, nothing run', () => {
    const workspace = mkdtempSync(join(tmp, 'refused-'));
    const { outputs, summary, jobExit } = runAction(workspace, { suite: 'eval', args: '--model sim --out elsewhere' });
    expect(jobExit).toBe(1);
    expect(outputs['exit-code']).toBe('1');
    expect(summary).toContain('--out is set by the action from its own input');
    expect(existsSync(join(workspace, 'elsewhere'))).toBe(false);
  });
});
