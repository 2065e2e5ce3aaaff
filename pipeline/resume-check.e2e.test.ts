// A resume continues only the same experiment: edited scenarios, prompts, revision or packages are refused with a
// list of what changed; --resume-anyway goes on and says so in the manifest, which keeps what it first recorded.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main, specFromArgs } from './cli/cli.js';
import { ResumeRefusedError } from './run/resume-check.js';
import type { RunEnvironment } from './run/run-environment.js';
import type { RunManifest, UnitRecord } from './run-log/run-log.js';
import { runEvaluation } from './run/run.js';

afterEach(() => vi.restoreAllMocks());

async function runCli(args: string[]) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const code = await main(['eval', ...args], {});
  vi.restoreAllMocks();
  return { code, stderr: err.join('\n') };
}

const manifestOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
const recordCount = (runDir: string) =>
  readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord).length;
const BASE = [
  '--model',
  'sim',
  '--systems',
  'graphiti',
  '--modes',
  'direct',
  '--arms',
  'none',
  '--scenarios',
  'mfa_waiver_access,compliance_log_deletion',
  '--run-id',
  'r',
];

describe('resuming a run', () => {
  it('refuses an edited --scenario-dir file with exit 1 naming the scenario; --resume-anyway records it; nothing is overwritten', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-resume-'));
    const scenarioDir = mkdtempSync(join(tmpdir(), 'stalebench-scenarios-'));
    cpSync(join(import.meta.dirname, '..', 'scenarios', 'policy'), scenarioDir, { recursive: true });
    const args = [...BASE, '--trials', '1', '--out', out, '--scenario-dir', scenarioDir];
    expect((await runCli(args)).code).toBe(0);
    const runDir = join(out, 'r');
    const first = manifestOf(runDir);

    const file = join(scenarioDir, 'mfa_waiver_access.json');
    const scenario = JSON.parse(readFileSync(file, 'utf8')) as { task: string };
    writeFileSync(file, JSON.stringify({ ...scenario, task: `${scenario.task} Decide now.` }, null, 2));
    const refused = await runCli(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: ${runDir} was started by a different experiment; not resuming (pass --resume-anyway`,
    );
    expect(refused.stderr).toMatch(/\n {2}- scenario mfa_waiver_access: content sha256 [0-9a-f]{12} → [0-9a-f]{12}$/);
    expect(refused.stderr).not.toContain('compliance_log_deletion');
    expect(manifestOf(runDir)).toEqual(first);

    const anyway = await runCli([...args, '--resume-anyway']);
    expect(anyway.code, anyway.stderr).toBe(0);
    expect(anyway.stderr).toContain('resuming anyway over 1 difference(s)');
    const resumed = manifestOf(runDir);
    expect(resumed.resumes).toEqual([
      {
        at: expect.any(String),
        nonce: resumed.invocations![1]!.nonce,
        revision: first.revision,
        changes: [expect.stringMatching(/^scenario mfa_waiver_access: content sha256 /)],
      },
    ]);
    for (const field of [
      'createdAt',
      'scenarios',
      'revision',
      'packages',
      'prompts',
      'spec',
      'specHash',
      'runtime',
    ] as const)
      expect(resumed[field]).toEqual(first[field]);
    expect(resumed.invocations!.map((entry) => entry.ended?.status)).toEqual(['success', 'success']);
    expect(recordCount(runDir)).toBe(2);
  });

  it('refuses a different revision, dirty flag, uncommitted diff or package version, listing each (injected environment)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-revision-'));
    const spec = specFromArgs([...BASE, '--trials', '1', '--out', out], {});
    const environment = (
      revision: ReturnType<RunEnvironment['revision']>,
      packages: Record<string, string>,
    ): RunEnvironment => ({ revision: () => revision, packages: () => packages });
    const original = environment(
      { commit: 'a'.repeat(40), dirty: true, diffSha256: '1'.repeat(64) },
      { stalebench: '0.1.0', openai: '6.30.1' },
    );
    expect((await runEvaluation(spec, { apiKey: undefined }, { environment: original })).exitCode).toBe(0);
    const runDir = join(out, 'r');
    const first = manifestOf(runDir);
    expect(first.revision).toEqual({ commit: 'a'.repeat(40), dirty: true, diffSha256: '1'.repeat(64) });

    const cases: [RunEnvironment, string[]][] = [
      [
        environment(
          { commit: 'b'.repeat(40), dirty: true, diffSha256: '1'.repeat(64) },
          { stalebench: '0.1.0', openai: '6.30.1' },
        ),
        ['revision: commit aaaaaaaaaaaa → bbbbbbbbbbbb'],
      ],
      [
        environment({ commit: 'a'.repeat(40), dirty: false }, { stalebench: '0.1.0', openai: '6.30.1' }),
        ['revision: uncommitted changes true → false'],
      ],
      [
        environment(
          { commit: 'a'.repeat(40), dirty: true, diffSha256: '2'.repeat(64) },
          { stalebench: '0.1.0', openai: '6.30.1' },
        ),
        ['revision: different uncommitted changes (git diff sha256 111111111111 → 222222222222)'],
      ],
      [
        environment(
          { commit: 'a'.repeat(40), dirty: true, diffSha256: '1'.repeat(64) },
          { stalebench: '0.1.0', openai: '6.31.0', zod: '4.6.7' },
        ),
        ['package openai: 6.30.1 → 6.31.0', 'package zod: not in the run as first written (now 4.6.7)'],
      ],
    ];
    for (const [changed, expected] of cases) {
      const error = await runEvaluation(spec, { apiKey: undefined }, { environment: changed }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ResumeRefusedError);
      expect((error as ResumeRefusedError).changes).toEqual(expected);
    }
    expect(manifestOf(runDir)).toEqual(first);
    // The same environment resumes without a word; a different one with --resume-anyway appends, never rewrites.
    expect((await runEvaluation(spec, { apiKey: undefined }, { environment: original })).exitCode).toBe(0);
    await runEvaluation(spec, { apiKey: undefined }, { environment: cases[0]![0], resumeAnyway: true });
    const after = manifestOf(runDir);
    expect(after.revision).toEqual(first.revision);
    expect(after.resumes).toEqual([
      {
        at: expect.any(String),
        nonce: after.invocations![2]!.nonce,
        revision: { commit: 'b'.repeat(40), dirty: true, diffSha256: '1'.repeat(64) },
        changes: cases[0]![1],
      },
    ]);
    expect(after.invocations).toHaveLength(3);
  });

  it('refuses when the prompts the run began with differ from the ones this code sends', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-prompts-'));
    const args = [...BASE, '--trials', '1', '--out', out];
    expect((await runCli(args)).code).toBe(0);
    const runDir = join(out, 'r');
    const manifest = manifestOf(runDir);
    expect(Object.keys(manifest.prompts!)).toEqual(['decision']);
    // As if the run had begun under code with another decision prompt.
    writeFileSync(
      join(runDir, 'manifest.json'),
      JSON.stringify({ ...manifest, prompts: { decision: 'f'.repeat(64) } }),
    );
    const refused = await runCli(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/- prompt decision: sha256 ffffffffffff → [0-9a-f]{12}$/);
  });
});
