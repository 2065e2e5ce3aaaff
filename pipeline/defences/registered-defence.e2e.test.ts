// Acceptance (issue #13): a throwaway defence added as one file plus its registry line (an import and an entry) runs
// through `pnpm eval`, `pnpm rescore --check` and `pnpm report` on a copy of the source tree, with no other edit.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SummaryCell } from '../../analysis/grid/summarize.js';
import { loadScenarios } from '../../scenarios/index.js';
import { unsafeAction } from '../../scenarios/scenario.js';
import { sha256 } from '../run-log/json-files.js';
import { buildDecisionMessages } from '../suites/grid/prompts.js';
import type { UnitRecord } from '../run-log/run-log.js';
import { copySourceTree, type CommandResult, type SourceCopy } from '../test-support/source-copy.js';
import { THROWAWAY_DEFENCE } from '../test-support/throwaway-parts/throwaway-defence.js';

const lines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
/** The arm id is not an `ArmId` of this checkout (it is one only in the copy). */
const isThrowaway = (record: UnitRecord) => (record.key.arm as string) === 'throwaway';
const ok = (result: CommandResult) => `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-2000)}`;

describe('a defence registered with one file and one registry line', () => {
  let copy: SourceCopy;
  let runDir: string;
  let evaluation: CommandResult;

  beforeAll(async () => {
    copy = copySourceTree();
    copy.addPart(THROWAWAY_DEFENCE);
    runDir = join(copy.dir, 'runs', 'throwaway');
    evaluation = await copy.run('eval', [
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none,throwaway',
      '--guard',
      'off,on',
      '--poem',
      'off,on',
      '--trials',
      '2',
      '--out',
      join(copy.dir, 'runs'),
      '--run-id',
      'throwaway',
      '--cache-dir',
      join(copy.dir, 'cache'),
      '-q',
    ]);
  }, 240_000);

  afterAll(() => copy?.remove());

  it('runs through eval: its screen, its composed prefix and its post-decision step all apply', async () => {
    expect(evaluation.code, ok(evaluation)).toBe(0);
    const scenarios = new Map((await loadScenarios()).map((scenario) => [scenario.id, scenario]));
    const records = lines<UnitRecord>(join(runDir, 'records.jsonl')).filter(isThrowaway);
    expect(records).toHaveLength(9 * 2 * 4);
    for (const record of records) {
      const scenario = scenarios.get(record.key.scenario)!;
      const trace = record.context.screens?.throwaway;
      expect(trace?.withheld).toEqual([
        { index: 0, text: trace?.input[0]?.text, reason: 'top-ranked', stage: 'throwaway' },
      ]);
      // The guard axis runs after the arm's own screen, on what that screen kept.
      if (record.key.guard) expect(record.context.guard?.input).toEqual(trace?.input.slice(1));
      else expect(record.context.records).toEqual(trace?.input.slice(1));
      // `uses: ['prompt-hardening']`: the model got HARDEN in front of the system message, over the kept records only.
      const messages = buildDecisionMessages({
        facts: record.context.records.map((r) => r.text),
        task: scenario.task,
        actions: scenario.actions,
        guardrail: scenario.guardrail,
        harden: true,
      });
      expect(record.promptSha256).toBe(sha256(JSON.stringify(messages)));
      const blocked = record.parsedAction === unsafeAction(scenario);
      expect(record.reviews).toEqual({ throwaway: { blocked } });
      if (blocked) expect(record.poem).toBeUndefined();
    }
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { cells: SummaryCell[] };
    const cell = (arm: string, guard: string, poem: string) =>
      summary.cells.find((c) => c.arm === arm && c.guard === guard && c.poem === poem);
    expect(cell('throwaway', 'off', 'off')?.defence).toBe('prompt hardening + throwaway screen');
    expect(cell('throwaway', 'on', 'on')?.defence).toBe(
      'prompt hardening + throwaway screen + stale guard + PoEM gate',
    );
    // The step blocks every unsafe decision: 0 where the undefended arm measured some (a number the defence changed).
    expect(cell('none', 'off', 'off')?.unsafe.k).toBeGreaterThan(0);
    expect(cell('throwaway', 'off', 'off')?.unsafe).toMatchObject({ k: 0, n: 18 });
  });

  it('is listed as an arm by --help', async () => {
    const help = await copy.run('eval', ['--help']);
    expect(help.stdout).toMatch(
      /all: none,store-filter,prompt-hardening,output-filter,filter-hardening,guard,guard-v2,revocation-ledger,ledger-filter,ledger-guard,zep-oracle-filter,zep-oracle-output-filter,zep-oracle-filter-hardening,throwaway\)/,
    );
  }, 60_000);

  it('rescores through the registry: --check passes, and an edited trace or score is found', async () => {
    const check = await copy.run('rescore', [runDir, '--check']);
    expect(check.code, ok(check)).toBe(0);
    const path = join(runDir, 'records.jsonl');
    const original = readFileSync(path, 'utf8');
    const rows = original.trim().split('\n');
    const index = rows.findIndex((line) => isThrowaway(JSON.parse(line) as UnitRecord));
    const edited = JSON.parse(rows[index]!) as UnitRecord;
    edited.context.screens!.throwaway!.withheld[0]!.reason = 'edited';
    rows[index] = JSON.stringify(edited);
    writeFileSync(path, `${rows.join('\n')}\n`);
    const tampered = await copy.run('rescore', [runDir, '--check', '--no-verify']);
    writeFileSync(path, original);
    expect(tampered.code, ok(tampered)).toBe(1);
    expect(tampered.stdout + tampered.stderr).toContain('context.screens.throwaway.withheld[0].reason');
  }, 240_000);

  it('is reported: the defence table has its rows, labelled from the registry', async () => {
    const report = await copy.run('report', [runDir]);
    expect(report.code, ok(report)).toBe(0);
    const tables = readFileSync(join(runDir, 'report', 'tables.md'), 'utf8');
    expect(tables).toContain('graphiti, direct: prompt hardening + throwaway screen + stale guard + PoEM gate');
  }, 240_000);
});
