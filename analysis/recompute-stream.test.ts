// pnpm rescore streams records.jsonl (issue #18): checks that look across lines (the output filter's reused reply, the
// guard rescore's last-line-wins) give what the loaded run gave, whatever the order of the lines.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../pipeline/cli/cli.js';
import type { UnitRecord } from '../pipeline/run-log/run-log.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { rescoreGuard } from './grid/guard-rescore.js';
import { loadRun, readRunHead } from './load-run.js';
import { recomputeRun } from './recompute-run.js';
import { main } from './rescore-command.js';
import { copyRun } from './test-support/run-copies.js';

let stored: string;
beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-recompute-stream-'));
  const flags = ['--model', 'sim', '--systems', 'graphiti', '--modes', 'direct', '--trials', '2', '--out', out];
  const spec = specFromArgs(
    [...flags, '--arms', 'none,output-filter,guard', '--guard', 'off,on', '--poem', 'off,on'],
    {},
  );
  stored = (await runEvaluation(spec, { apiKey: undefined })).runDir;
}, 120_000);

const recordsOf = (runDir: string) => join(runDir, 'records.jsonl');
const linesOf = (runDir: string) => readFileSync(recordsOf(runDir), 'utf8').trimEnd().split('\n');
const rowOf = (text: string) => JSON.parse(text) as UnitRecord;

/** The first output-filter unit that reused a reply, and the line index of the unit it reused. */
function reusePair(lines: readonly string[]): { reusing: number; reused: number } {
  const reusing = lines.findIndex((text) => rowOf(text).outputFilter?.reusedUnit);
  if (reusing < 0) throw new Error('the run has no output-filter unit that reused a reply');
  const reusedId = rowOf(lines[reusing]!).outputFilter!.reusedUnit!;
  return { reusing, reused: lines.findIndex((text) => rowOf(text).unitId === reusedId) };
}

describe('recomputeRun streams the records', () => {
  it('needs no loaded records: the run head alone gives the loaded run’s summary and no differences', async () => {
    const streamed = await recomputeRun(readRunHead(stored));
    const loaded = await recomputeRun(loadRun(stored));
    expect(streamed.differences).toEqual([]);
    expect(streamed.summary).toEqual(loaded.summary);
    expect(JSON.parse(readFileSync(join(stored, 'summary.json'), 'utf8'))).toMatchObject(streamed.summary);
  });

  it('checks a reused reply against the reused unit’s last line, wherever it is in the file, and reports it in file order', async () => {
    const runDir = copyRun(stored);
    const lines = linesOf(runDir);
    const { reusing, reused } = reusePair(lines);
    expect(reused).toBeLessThan(reusing);
    // The reused unit's line moved after the reusing one (as a resumed run re-runs it): still the same reply, no difference.
    const moved = [...lines.slice(0, reused), ...lines.slice(reused + 1), lines[reused]!];
    writeFileSync(recordsOf(runDir), `${moved.join('\n')}\n`);
    expect((await recomputeRun(readRunHead(runDir))).differences).toEqual([]);
    // A later line of the reused unit with another reply text wins: the reusing unit no longer matches it.
    const edited = rowOf(lines[reused]!);
    edited.reply = { ...edited.reply!, text: `${edited.reply!.text} ` };
    appendFileSync(recordsOf(runDir), `${JSON.stringify(edited)}\n`);
    const { differences } = await recomputeRun(readRunHead(runDir));
    const reusingLine = moved.indexOf(lines[reusing]!) + 1;
    expect(differences.filter((d) => d.field === 'outputFilter.reusedUnit').map((d) => d.line)).toEqual([reusingLine]);
    expect(differences.map((d) => d.line ?? Infinity)).toEqual(
      differences.map((d) => d.line ?? Infinity).sort((a, b) => a - b),
    );
  });

  it('an edited reply of the reused unit is named at the reusing unit, before the later lines’ differences', async () => {
    const runDir = copyRun(stored);
    const lines = linesOf(runDir);
    const { reusing, reused } = reusePair(lines);
    const edited = rowOf(lines[reused]!);
    edited.reply = { ...edited.reply!, text: `${edited.reply!.text} ` };
    const last = rowOf(lines.at(-1)!);
    last.promptSha256 = '0'.repeat(64);
    const changed = lines.map((text, index) =>
      index === reused ? JSON.stringify(edited) : index === lines.length - 1 ? JSON.stringify(last) : text,
    );
    writeFileSync(recordsOf(runDir), `${changed.join('\n')}\n`);
    const { differences } = await recomputeRun(readRunHead(runDir));
    expect(differences.map((d) => [d.line, d.field])).toEqual([
      [reusing + 1, 'outputFilter.reusedUnit'],
      [lines.length, 'promptSha256'],
    ]);
  });
});

describe('pnpm rescore --guard-* streams the records', () => {
  it('gives what rescoreGuard gives on the loaded run, a unit’s last line winning', async () => {
    const runDir = copyRun(stored);
    const lines = linesOf(runDir);
    // A guard unit recorded twice (a retried unit): its later line, with the guard trace dropped, is the one that counts.
    const twice = lines.findIndex((text) => rowOf(text).context.guard !== undefined);
    const retried = rowOf(lines[twice]!);
    delete retried.context.guard;
    appendFileSync(recordsOf(runDir), `${JSON.stringify(retried)}\n`);
    const code = await main(
      [runDir, '--no-verify', '--guard-trust-explicit-fields', 'false'],
      () => undefined,
      () => undefined,
    );
    expect(code).toBe(0);
    const written = JSON.parse(readFileSync(join(runDir, 'summary.rescored.json'), 'utf8')) as Record<string, unknown>;
    const { guardConfig, guardMetrics, ...rest } = rescoreGuard(loadRun(runDir), { trustExplicitFields: false });
    expect(written.guardRescore).toEqual(JSON.parse(JSON.stringify(rest)));
    expect(written.guardMetrics).toEqual(guardMetrics);
    expect(written.guardConfig).toEqual(guardConfig);
    const traced = lines.filter((text) => rowOf(text).context.guard !== undefined).length;
    expect((written.guardRescore as { units: { traced: number } }).units.traced).toBe(traced - 1);
  });
});
