// Runs of an older readable run-log / summary version (2) are read by every reader and resumed; a newer version than
// this code's is refused by each with one clear error and nothing written (issue #26 item 14).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as compareMain } from '../../analysis/compare-command.js';
import { loadRun } from '../../analysis/load-run.js';
import { buildReport, main as reportMain } from '../../analysis/report-command.js';
import { main as rescoreMain } from '../../analysis/rescore-command.js';
import { SUMMARY_VERSION } from '../../analysis/grid/summarize.js';
import { runBinding } from '../run/run-binding.js';
import { main as verifyMain } from '../../analysis/verify-run-command.js';
import { openRunLogFile, CHAIN_FIELD } from './run-log-chain.js';
import { readLogHeads } from './run-log-repair.js';
import { runLogFileNames } from './run-log-scan.js';
import { READABLE_RUN_LOG_VERSIONS, RUN_LOG_VERSION, type RunManifest } from './run-log.js';
import { runEvalCli } from '../test-support/eval-cli.js';
import { evalInProcess, merge } from '../test-support/shard-runs.js';

/** The oldest run-log (and summary) version still read. */
const OLD = 2;
const NEWER = RUN_LOG_VERSION + 1;

const root = mkdtempSync(join(tmpdir(), 'stalebench-log-versions-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cache = join(root, 'cache');
const grid = ['--model', 'sim', '--systems', 'graphiti,mem0', '--modes', 'direct', '--trials', '1', '--quiet'];
const gridArgs = (out: string) => [...grid, '--out', out, '--cache-dir', cache];

/** The one run directory under `out`. */
const onlyRun = (out: string) => join(out, readdirSync(out)[0]!);

/** A copy of `runDir` under a fresh output root (same run id, so the same command resumes it there). */
function copyOf(runDir: string): { out: string; runDir: string } {
  const out = mkdtempSync(join(root, 'copy-'));
  cpSync(runDir, join(out, basename(runDir)), { recursive: true });
  return { out, runDir: join(out, basename(runDir)) };
}

const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * Rewrites a run as another run-log version would have stored it: `version` of the manifest and of every line of
 * every run-log file (the lines re-chained by the run log's own writer, `keep` of each file's lines kept), the
 * manifest's heads recomputed; `summary` the version `summary.json` says.
 */
function stampVersion(
  runDir: string,
  version: number,
  options: { summary?: number; status?: RunManifest['status']; keep?: (file: string, count: number) => number } = {},
): void {
  const manifestPath = join(runDir, 'manifest.json');
  const manifest = readJson<RunManifest & { version: number }>(manifestPath);
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, version }));
  for (const file of runLogFileNames(runDir)) {
    const rows = lines(join(runDir, file));
    rmSync(join(runDir, file));
    const log = openRunLogFile(runDir, file);
    for (const row of rows.slice(0, options.keep?.(file, rows.length) ?? rows.length)) {
      const { [CHAIN_FIELD]: _prev, ...value } = row;
      log.append({ ...value, version });
    }
  }
  if (options.summary !== undefined) {
    const summaryPath = join(runDir, 'summary.json');
    writeFileSync(summaryPath, JSON.stringify({ ...readJson<object>(summaryPath), version: options.summary }));
  }
  // Version 2 predates the binding of spec and summary.json (version 3 writes it with every manifest write).
  const { bound: _bound, ...unbound } = manifest;
  writeFileSync(
    manifestPath,
    JSON.stringify({
      ...unbound,
      version,
      ...(options.status ? { status: options.status } : {}),
      logHeads: readLogHeads(runDir),
      ...(version >= 3 ? { bound: runBinding(runDir, manifest.spec) } : {}),
    }),
  );
}

/** A command's exit code and everything it printed. */
async function command(
  main: (argv: string[], out: (line: string) => void, err: (line: string) => void) => number | Promise<number>,
  argv: string[],
) {
  const printed: string[] = [];
  const code = await main(
    argv,
    (line) => printed.push(line),
    (line) => printed.push(line),
  );
  return { code, text: printed.join('\n') };
}

/** Every file of a run directory with its bytes (what "nothing written" compares). */
const snapshot = (runDir: string) =>
  Object.fromEntries(readdirSync(runDir).map((file) => [file, readFileSync(join(runDir, file), 'utf8')]));

const current = mkdtempSync(join(root, 'current-'));
const made = await runEvalCli(gridArgs(current), {});
const currentRun = onlyRun(current);

describe('run-log and summary versions', () => {
  it('this code writes the current versions', () => {
    expect(made.code, made.stderr).toBe(0);
    expect(RUN_LOG_VERSION).toBe(3);
    expect(SUMMARY_VERSION).toBe(3);
    expect(READABLE_RUN_LOG_VERSIONS).toEqual([OLD, RUN_LOG_VERSION]);
    expect(readJson<RunManifest>(join(currentRun, 'manifest.json')).version).toBe(RUN_LOG_VERSION);
    expect(lines(join(currentRun, 'records.jsonl')).every((r) => r.version === RUN_LOG_VERSION)).toBe(true);
    expect(readJson<{ version: number }>(join(currentRun, 'summary.json')).version).toBe(SUMMARY_VERSION);
  });

  it(`reads a version-${OLD} run in every reader: verify-run, report (the same tables), rescore --check, compare`, async () => {
    const { runDir } = copyOf(currentRun);
    stampVersion(runDir, OLD, { summary: 2 });
    expect(lines(join(runDir, 'setup.jsonl')).every((r) => r.version === OLD)).toBe(true);
    expect(loadRun(runDir).records.size).toBe(loadRun(currentRun).records.size);
    expect((await command(verifyMain, [runDir])).code).toBe(0);
    expect((await buildReport([runDir])).markdown).toBe((await buildReport([currentRun])).markdown);
    expect((await command(reportMain, [runDir, '-o', join(root, 'report-old')])).code).toBe(0);
    const rescore = await command(rescoreMain, [runDir, '--check']);
    expect(rescore.text).toContain('every stored value matches its recomputation');
    expect(rescore.code).toBe(0);
    const compared = await command(compareMain, [currentRun, runDir]);
    expect(compared.code, compared.text).toBe(0);
  });

  it(`resumes an interrupted version-${OLD} run: its lines kept, the rest appended in version ${RUN_LOG_VERSION}, read whole`, async () => {
    const { out, runDir } = copyOf(currentRun);
    stampVersion(runDir, OLD, {
      summary: 2,
      status: 'cancelled',
      keep: (file, count) => (file === 'records.jsonl' ? count - 3 : count),
    });
    const resumed = await runEvalCli(gridArgs(out), {});
    expect(resumed.code, resumed.stderr).toBe(0);
    const records = lines(join(runDir, 'records.jsonl'));
    expect(records.map((r) => r.version)).toEqual([
      ...Array.from({ length: records.length - 3 }, () => OLD),
      RUN_LOG_VERSION,
      RUN_LOG_VERSION,
      RUN_LOG_VERSION,
    ]);
    expect(readJson<RunManifest>(join(runDir, 'manifest.json'))).toMatchObject({
      version: RUN_LOG_VERSION,
      status: 'success',
    });
    expect((await command(verifyMain, [runDir])).code).toBe(0);
    const rescore = await command(rescoreMain, [runDir, '--check']);
    expect(rescore.code, rescore.text).toBe(0);
    expect((await buildReport([runDir])).markdown).toBe((await buildReport([currentRun])).markdown);
  });

  it(`refuses a version-${NEWER} run in every reader with one error saying a newer stalebench wrote it`, async () => {
    const { out, runDir } = copyOf(currentRun);
    stampVersion(runDir, NEWER);
    const newer = new RegExp(
      `run-log version ${NEWER} was written by a newer stalebench \\(this one reads versions 2 and 3\\)`,
    );
    expect(() => loadRun(runDir)).toThrow(newer);
    for (const [name, result] of [
      ['report', await command(reportMain, [runDir, '-o', join(root, 'report-newer')])],
      ['rescore', await command(rescoreMain, [runDir, '--check'])],
      ['compare', await command(compareMain, [currentRun, runDir])],
    ] as const) {
      expect(result.code, name).toBe(1);
      expect(result.text, name).toMatch(newer);
    }
    expect(existsSync(join(root, 'report-newer'))).toBe(false);
    // A resume: refused before anything is written (no line, no manifest change, no lock left).
    const before = snapshot(runDir);
    const resumed = await runEvalCli(gridArgs(out), {});
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(newer);
    expect(resumed.stderr).toContain('not resumed');
    expect(snapshot(runDir)).toEqual(before);
  });

  it(`reads a version-${OLD} forged-reasoning run in the PoEM report, and refuses a version-${NEWER} one`, async () => {
    const out = mkdtempSync(join(root, 'forged-'));
    const result = await runEvalCli(
      [
        '--experiment',
        'forged-reasoning',
        '--model',
        'sim',
        '--trials',
        '1',
        '--quiet',
        '--out',
        out,
        '--cache-dir',
        cache,
      ],
      {},
    );
    expect(result.code, result.stderr).toBe(0);
    const { runDir } = copyOf(onlyRun(out));
    stampVersion(runDir, OLD);
    expect(lines(join(runDir, 'forged-reasoning.jsonl')).every((r) => r.version === OLD)).toBe(true);
    expect((await buildReport([runDir])).markdown).toBe((await buildReport([onlyRun(out)])).markdown);
    stampVersion(runDir, NEWER);
    await expect(buildReport([runDir])).rejects.toMatchObject({
      issues: [
        { path: 'version', message: expect.stringContaining(`run-log version ${NEWER} was written by a newer`) },
      ],
    });
  });

  it(`rescore refuses a summary.json of a newer summary version, naming it`, async () => {
    const { runDir } = copyOf(currentRun);
    stampVersion(runDir, RUN_LOG_VERSION, { summary: SUMMARY_VERSION + 1 });
    const rescore = await command(rescoreMain, [runDir, '--check']);
    expect(rescore.code).toBe(1);
    expect(rescore.text).toMatch(
      new RegExp(
        `summary version ${SUMMARY_VERSION + 1} was written by a newer stalebench \\(this one checks versions 2 and 3\\)`,
      ),
    );
  });

  it(`merges version-${OLD} shards into a version-${RUN_LOG_VERSION} run, and refuses a version-${NEWER} shard`, async () => {
    const shards = mkdtempSync(join(root, 'shards-'));
    for (const shard of ['1/2', '2/2']) {
      const result = await evalInProcess([...gridArgs(shards), '--shard', shard]);
      expect(result.code, result.stderr).toBe(0);
    }
    const dirs = readdirSync(shards)
      .sort()
      .map((dir) => join(shards, dir));
    for (const dir of dirs) stampVersion(dir, OLD, { summary: 2 });
    const mergedDir = join(root, 'merged-old');
    const merged = merge(dirs, mergedDir);
    expect(merged.code, merged.stderr).toBe(0);
    expect(readJson<RunManifest>(join(mergedDir, 'manifest.json')).version).toBe(RUN_LOG_VERSION);
    expect((await command(verifyMain, [mergedDir])).code).toBe(0);
    stampVersion(dirs[1]!, NEWER);
    const refused = merge(dirs, join(root, 'merged-newer'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`run-log version ${NEWER} was written by a newer stalebench`);
  });
});
