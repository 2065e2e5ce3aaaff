// `pnpm verify-run` on a real sim run and on copies with each kind of edit; the analysis commands verify first.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../pipeline/cli/cli.js';
import { lineHash } from '../pipeline/run-log/run-log-chain.js';
import type { RunManifest } from '../pipeline/run-log/run-log.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { main as notebook } from '../notebooks/run-notebook.js';
import { PAPER_SCENARIO_IDS } from '../scenarios/test-support/paper-scenarios.js';
import { main as compare } from './compare-command.js';
import { main as report } from './report-command.js';
import { main as rescore } from './rescore-command.js';
import { main } from './verify-run-command.js';

let runDir: string;
/** The same spec under another run id: its lines chain from another genesis. */
let otherRunDir: string;
beforeAll(async () => {
  // A fixed fixture whatever else is registered: the paper's nine scenarios × 2 trials = 18 records, 9 probes; the line
  // numbers below index it.
  const args = [
    '--model',
    'sim',
    '--systems',
    'graphiti',
    '--modes',
    'direct',
    '--arms',
    'none',
    '--trials',
    '2',
    '--scenarios',
    PAPER_SCENARIO_IDS.join(','),
    '--out',
    mkdtempSync(join(tmpdir(), 'stalebench-verify-')),
  ];
  runDir = (await runEvaluation(specFromArgs(args, {}), { apiKey: undefined })).runDir;
  otherRunDir = (await runEvaluation(specFromArgs([...args, '--run-id', 'other'], {}), { apiKey: undefined })).runDir;
}, 60_000);

function verify(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(
    args,
    (text) => out.push(text),
    (text) => err.push(text),
  );
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-verify-copy-'));
  cpSync(runDir, dir, { recursive: true });
  return dir;
}
const linesOf = (dir: string, file = 'records.jsonl') => readFileSync(join(dir, file), 'utf8').split('\n').slice(0, -1);
const writeLines = (dir: string, lines: string[], file = 'records.jsonl') =>
  writeFileSync(join(dir, file), lines.map((l) => `${l}\n`).join(''));
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as RunManifest;
const writeManifest = (dir: string, manifest: RunManifest) =>
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
/** Line 5 with its parsed action flipped; the chain link is left as it was. */
function editParsedAction(dir: string, index = 4): void {
  const lines = linesOf(dir);
  const record = JSON.parse(lines[index]!);
  record.parsedAction = record.parsedAction === 'DENY' ? 'ALLOW' : 'DENY';
  lines[index] = JSON.stringify(record);
  writeLines(dir, lines);
}
/** Applies `edit` to a copy of the run and returns what verify-run says. */
function tampered(edit: (dir: string) => void) {
  const dir = copy();
  edit(dir);
  return { dir, ...verify([dir]) };
}

describe('pnpm verify-run', () => {
  it('exits 0 on an intact run, naming each file and its line count', () => {
    expect(linesOf(runDir)).toHaveLength(18);
    const result = verify([runDir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^intact: .* \(status success\): records\.jsonl 18 line\(s\), setup\.jsonl 9 line\(s\)/,
    );
  });

  it.each([
    [
      'an edited line',
      (dir: string) => editParsedAction(dir),
      /records\.jsonl:5: edited: line 6 was chained to other bytes/,
    ],
    [
      'an edited last line',
      (dir: string) => editParsedAction(dir, 17),
      /records\.jsonl:18: differs from the head recorded in manifest\.json/,
    ],
    [
      'a deleted line',
      (dir: string) =>
        writeLines(
          dir,
          linesOf(dir).filter((_, i) => i !== 4),
        ),
      /records\.jsonl:5: line\(s\) missing before this one \(deleted\)/,
    ],
    [
      'two swapped lines',
      (dir: string) => {
        const lines = linesOf(dir);
        [lines[4], lines[5]] = [lines[5]!, lines[4]!];
        writeLines(dir, lines);
      },
      /records\.jsonl:5: out of order: it was written right after line 6/,
    ],
    [
      'a duplicated line',
      (dir: string) => {
        const lines = linesOf(dir);
        writeLines(dir, [...lines.slice(0, 9), lines[2]!, ...lines.slice(9)]);
      },
      /records\.jsonl:10: inserted: a duplicate of line 3/,
    ],
    [
      'an inserted line chained by a forger',
      (dir: string) => {
        const lines = linesOf(dir);
        const forged = JSON.stringify({ ...JSON.parse(lines[9]!), prev: lineHash(lines[8]!), unitId: 'forged' });
        writeLines(dir, [...lines.slice(0, 9), forged, ...lines.slice(9)]);
      },
      /records\.jsonl:10: inserted: line 11 was written right after line 9, so line 10 was inserted or moved here/,
    ],
    [
      'whole trailing lines removed',
      (dir: string) => writeLines(dir, linesOf(dir).slice(0, 16)),
      /records\.jsonl:17: missing: manifest\.json records 18 line\(s\), the file has 16/,
    ],
    [
      'the last line cut mid-line',
      (dir: string) =>
        writeFileSync(join(dir, 'records.jsonl'), readFileSync(join(dir, 'records.jsonl'), 'utf8').slice(0, -100)),
      /records\.jsonl:18: torn \(no trailing newline\).*moves it to records\.jsonl\.torn/,
    ],
    [
      'a line appended after the run finished',
      (dir: string) => {
        const lines = linesOf(dir);
        writeLines(dir, [
          ...lines,
          JSON.stringify({ ...JSON.parse(lines[0]!), prev: lineHash(lines[17]!), unitId: 'late' }),
        ]);
      },
      /records\.jsonl:19: appended after the run finished: manifest\.json \(status success\) records 18 line\(s\), the file has 19/,
    ],
    [
      'a first line taken from another run',
      (dir: string) => writeLines(dir, [linesOf(otherRunDir)[0]!, ...linesOf(dir).slice(1)]),
      /records\.jsonl:1: does not start this file's chain for this run/,
    ],
    [
      'a middle line taken from another run',
      (dir: string) => {
        const lines = linesOf(dir);
        lines[4] = linesOf(otherRunDir)[4]!;
        writeLines(dir, lines);
      },
      /records\.jsonl:5: replaced: neither its link to line 4 nor line 6's link to it holds/,
    ],
    [
      'a middle line that is not JSON',
      (dir: string) => {
        const lines = linesOf(dir);
        lines[4] = lines[4]!.slice(0, 50);
        writeLines(dir, lines);
      },
      /records\.jsonl:5: not valid JSON/,
    ],
    [
      'a deleted file',
      (dir: string) => rmSync(join(dir, 'setup.jsonl')),
      /setup\.jsonl: deleted: manifest\.json records 9 line\(s\)/,
    ],
  ])('exits 1 naming the first bad line for %s', (_, edit, expected) => {
    const result = tampered(edit);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^FAILED: /);
    expect(result.stderr).toMatch(expected);
  });

  it('calls a run written before the chain unverifiable (exit 1), not broken', () => {
    const result = tampered((dir) => {
      for (const file of ['setup.jsonl', 'records.jsonl'])
        writeLines(
          dir,
          linesOf(dir, file).map((l) => JSON.stringify({ ...JSON.parse(l), prev: undefined })),
          file,
        );
      writeManifest(dir, { ...manifestOf(dir), logHeads: undefined });
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^unverifiable: .*: written before the run log was hash-chained \(manifest\.json has no logHeads\)/,
    );
  });

  it('says plainly that a started run (a crash) has chained lines beyond its recorded head: exit 2, not tampered', () => {
    const result = tampered((dir) => {
      const lines = linesOf(dir);
      const manifest = manifestOf(dir);
      writeManifest(dir, {
        ...manifest,
        status: 'started',
        logHeads: { ...manifest.logHeads, 'records.jsonl': { lines: 15, sha256: lineHash(lines[14]!) } },
      });
      writeFileSync(join(dir, 'records.jsonl'), `${lines.join('\n')}\n${lines[0]!.slice(0, 30)}`);
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^unfinished: .*status started: the run did not finish/);
    expect(result.stderr).toContain('records.jsonl: 3 line(s) beyond the head recorded in manifest.json');
    expect(result.stderr).toContain('records.jsonl:19: torn last line (no trailing newline)');
    expect(result.stderr).not.toMatch(/FAILED|edited|inserted/);
  });

  it('exits 1 for a directory that is not a run, worst verdict first over several runs, and prints JSON', () => {
    expect(verify([tmpdir()]).stderr).toMatch(/no manifest\.json; not a run directory/);
    const broken = tampered((dir) => editParsedAction(dir)).dir;
    expect(verify([runDir, broken]).code).toBe(1);
    const json = verify([runDir, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject([
      {
        state: 'intact',
        status: 'success',
        problems: [],
        files: [
          { file: 'records.jsonl', lines: 18, beyondHead: 0 },
          { file: 'setup.jsonl', lines: 9 },
        ],
      },
    ]);
    expect(verify([]).code).toBe(1);
  });
});

describe('report, rescore, compare and notebook verify first', () => {
  it('refuse a run with one edited parsedAction (exit 1, naming the line) and read it only with --no-verify', async () => {
    const dir = tampered((d) => editParsedAction(d)).dir;
    const err: string[] = [];
    const collect = (line: string) => void err.push(line);
    const quiet = () => {};
    expect(await report([dir, '-o', mkdtempSync(join(tmpdir(), 'stalebench-verify-report-'))], quiet, collect)).toBe(1);
    expect(await rescore([dir, '--check'], quiet, collect)).toBe(1);
    expect(await compare([runDir, dir], quiet, collect)).toBe(1);
    expect(await notebook(['table-6', dir], quiet, collect)).toBe(1);
    expect(err).toHaveLength(4);
    for (const line of err)
      expect(line).toMatch(
        /the run log does not verify: records\.jsonl:5: edited.*pnpm verify-run .*--no-verify reads the run anyway/,
      );
    expect(
      await report([dir, '--no-verify', '-o', mkdtempSync(join(tmpdir(), 'stalebench-verify-report-'))], quiet, quiet),
    ).toBe(0);
    expect(await compare([runDir, dir, '--no-verify'], quiet, quiet)).toBe(0);
    expect(await notebook(['table-6', dir, '--no-verify'], quiet, quiet)).toBe(0);
    expect(await rescore([runDir, '--check'], quiet, quiet)).toBe(0);
  });
});
