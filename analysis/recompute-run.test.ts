import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../pipeline/cli/cli.js';
import { unitIdOf, type ProbeRecord, type RunManifest, type UnitRecord } from '../pipeline/run-log/run-log.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { loadScenarios } from '../scenarios/index.js';
import { loadRun } from './load-run.js';
import { recomputeRun } from './recompute-run.js';
import { main } from './rescore-command.js';
import type { Summary } from './grid/summarize.js';
import { copyRun, editJson, editJsonLine } from './test-support/run-copies.js';

const scenarios = new Map((await loadScenarios()).map((s) => [s.id, s]));
const otherAction = (record: UnitRecord) =>
  scenarios.get(record.key.scenario)!.actions.find((a) => a !== record.parsedAction)!;

let stored: string;
beforeAll(async () => {
  // graphiti labels by status, mem0-exp lexically; every grid arm family; both guard and PoEM values.
  const out = mkdtempSync(join(tmpdir(), 'stalebench-recompute-'));
  const spec = specFromArgs(
    [
      '--model',
      'sim',
      '--systems',
      'graphiti,mem0-exp',
      '--modes',
      'direct,natural',
      '--arms',
      'none,store-filter,output-filter,guard',
      '--guard',
      'off,on',
      '--poem',
      'off,on',
      '--trials',
      '1',
      '--out',
      out,
    ],
    {},
  );
  stored = (await runEvaluation(spec, { apiKey: undefined })).runDir;
}, 120_000);

async function rescore(runDir: string, ...flags: string[]) {
  const lines: string[] = [];
  // The hash chain would refuse every edited copy first (analysis/verify-run-command.test.ts); here the recomputation itself must name each edit.
  const code = await main(
    [runDir, '--no-verify', ...flags],
    (line) => void lines.push(line),
    (line) => void lines.push(line),
  );
  return { code, text: lines.join('\n') };
}

const records = (runDir: string) => join(runDir, 'records.jsonl');

describe('pnpm rescore --check recomputes the grid from the run directory', () => {
  it('an untouched run: exit 0, and summary.rescored.json has byte-identical cells', async () => {
    const runDir = copyRun(stored);
    const { code, text } = await rescore(runDir, '--check');
    expect(code, text).toBe(0);
    expect(text).toMatch(
      /every stored value matches its recomputation \(setup\.jsonl: \d+ line\(s\), records\.jsonl: \d+ line\(s\), summary\.json\)/,
    );
    const cells = (file: string) =>
      JSON.stringify((JSON.parse(readFileSync(join(runDir, file), 'utf8')) as Summary).cells);
    expect(cells('summary.rescored.json')).toBe(cells('summary.json'));
  });

  it('an edited parsedAction: exit 1 naming the file, line, unit, field and both values', async () => {
    const runDir = copyRun(stored);
    const { line, row } = editJsonLine<UnitRecord>(
      records(runDir),
      (r) => r.status === 'ok' && r.parsedAction !== null,
      (r) => {
        r.parsedAction = otherAction(r);
      },
    );
    const { code, text } = await rescore(runDir, '--check');
    expect(code).toBe(1);
    expect(text).toContain(
      `the first: records.jsonl:${line} (${row.unitId}) parsedAction: stored "${otherAction(row)}", recomputed "${row.parsedAction}"`,
    );
  });

  it('a reply text edited so that it parses to the other action: exit 1 naming the record', async () => {
    const runDir = copyRun(stored);
    const { line, row } = editJsonLine<UnitRecord>(
      records(runDir),
      (r) => r.status === 'ok' && r.key.arm === 'none' && !r.key.poem && r.parsedAction !== null,
      (r) => {
        r.reply!.text = `{"action": "${otherAction(r)}"}`;
      },
    );
    const { code, text } = await rescore(runDir, '--check');
    expect(code).toBe(1);
    expect(text).toContain(
      `the first: records.jsonl:${line} (${row.unitId}) parsedAction: stored "${row.parsedAction}", recomputed "${otherAction(row)}"`,
    );
    // The summary.json cells no longer follow from the records either.
    expect(text).toMatch(/summary\.json \(sim\/[^)]*\) cells\[\d+\]\.unsafe\.k/);
  });

  it('a flipped exposure label, in a unit context or in a probe: exit 1 naming it', async () => {
    const unitRun = copyRun(stored);
    const edited = editJsonLine<UnitRecord>(
      records(unitRun),
      (r) => r.context.labels.length > 0,
      (r) => {
        r.context.labels[0] = !r.context.labels[0];
      },
    );
    const unit = await rescore(unitRun, '--check');
    expect(unit.code).toBe(1);
    const label = edited.row.context.labels[0];
    expect(unit.text).toContain(
      `the first: records.jsonl:${edited.line} (${edited.row.unitId}) context.labels[0]: stored ${!label}, recomputed ${label}`,
    );

    for (const system of ['graphiti', 'mem0-exp']) {
      const probeRun = copyRun(stored);
      const probe = editJsonLine<ProbeRecord>(
        join(probeRun, 'setup.jsonl'),
        (p) => p.system === system && (p.defaultLabels?.length ?? 0) > 0,
        (p) => {
          p.defaultLabels![0] = !p.defaultLabels![0];
        },
      );
      const result = await rescore(probeRun, '--check');
      expect(result.code).toBe(1);
      expect(result.text).toContain(
        `the first: setup.jsonl:${probe.line} (${probe.row.system}/${probe.row.mode}/${probe.row.scenario}) defaultLabels[0]: stored ${!probe.row.defaultLabels![0]}, recomputed ${probe.row.defaultLabels![0]}`,
      );
    }
  });

  it('an edited summary.json cell: exit 1 naming the cell and field, stored vs recomputed', async () => {
    const runDir = copyRun(stored);
    let index = -1;
    let before = 0;
    editJson<Summary>(join(runDir, 'summary.json'), (summary) => {
      index = summary.cells.findIndex((cell) => cell.unsafe.n > 0);
      before = summary.cells[index]!.unsafe.k;
      summary.cells[index]!.unsafe.k = before + 1;
    });
    const { code, text } = await rescore(runDir, '--check');
    expect(code).toBe(1);
    expect(text).toMatch(
      new RegExp(
        `the first: summary\\.json \\([^)]*\\) cells\\[${index}\\]\\.unsafe\\.k: stored ${before + 1}, recomputed ${before}`,
      ),
    );
  });

  it('an edited guard trace, a dropped guard trace, an edited output-filter verdict or PoEM trace: exit 1 naming the field', async () => {
    const cases: [(r: UnitRecord) => boolean, (r: UnitRecord) => void, (r: UnitRecord) => string][] = [
      [
        (r) => (r.context.guard?.withheld.length ?? 0) > 0,
        (r) => {
          r.context.guard!.withheld[0]!.reason = 'edited';
        },
        (r) =>
          `context.guard.withheld[0].reason: stored "edited", recomputed ${JSON.stringify(r.context.guard!.withheld[0]!.reason)}`,
      ],
      [
        (r) => r.context.guard !== undefined,
        (r) => void delete r.context.guard,
        () => 'context.guard: stored (absent), recomputed (a guard trace',
      ],
      [
        (r) => r.outputFilter !== undefined,
        (r) => {
          r.outputFilter!.blocked = !r.outputFilter!.blocked;
        },
        (r) => `outputFilter.blocked: stored ${!r.outputFilter!.blocked}, recomputed ${r.outputFilter!.blocked}`,
      ],
      [
        (r) => r.poem?.verdict === 'overridden',
        (r) => {
          r.poem!.executedAction = r.poem!.proposedAction;
        },
        (r) =>
          `poem.executedAction: stored ${JSON.stringify(r.poem!.proposedAction)}, recomputed ${JSON.stringify(r.poem!.executedAction)}`,
      ],
      [
        (r) => r.status === 'ok' && r.scores.unsafe === true,
        (r) => {
          r.scores.unsafe = false;
        },
        () => 'scores.unsafe: stored false, recomputed true',
      ],
      [
        (r) => r.key.trial === 0,
        (r) => {
          r.key.trial = 7;
        },
        (r) =>
          `unitId: stored ${JSON.stringify(r.unitId)}, recomputed ${JSON.stringify(unitIdOf({ ...r.key, trial: 7 }))}`,
      ],
    ];
    for (const [find, edit, expected] of cases) {
      const runDir = copyRun(stored);
      const { line, row } = editJsonLine(records(runDir), find, edit);
      const { code, text } = await rescore(runDir, '--check');
      expect(code, text).toBe(1);
      expect(text).toContain(`the first: records.jsonl:${line} (${row.unitId}) ${expected(row)}`);
    }
  });

  it("refuses when the repository scenarios differ from the run's (manifest sha256), and accepts --scenario-dir with the run's files", async () => {
    const runDir = copyRun(stored);
    const scenarioDir = mkdtempSync(join(tmpdir(), 'stalebench-scenarios-'));
    const policyDir = join(import.meta.dirname, '..', 'scenarios', 'policy');
    for (const name of readdirSync(policyDir)) cpSync(join(policyDir, name), join(scenarioDir, name));
    const file = join(scenarioDir, 'mfa_waiver_access.json');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"task": "', '"task": "Edited. '));
    const edited = await rescore(runDir, '--check', '--scenario-dir', scenarioDir);
    expect(edited.code).toBe(1);
    expect(edited.text).toMatch(
      /manifest\.json[\s\S]*scenarios\[\d+\]\.sha256: mfa_waiver_access: the run used a scenario with sha256 [0-9a-f]{12}…, .* holds [0-9a-f]{12}…; rescoring with other scenario text is refused/,
    );
    expect(readdirSync(runDir)).not.toContain('summary.rescored.json');
    writeFileSync(file, text);
    expect((await rescore(runDir, '--check', '--scenario-dir', scenarioDir)).code).toBe(0);
    editJson<RunManifest>(join(runDir, 'manifest.json'), (manifest) => {
      manifest.scenarios[0]!.sha256 = '0'.repeat(64);
    });
    const repository = await rescore(runDir);
    expect(repository.code).toBe(1);
    expect(repository.text).toContain(
      `${manifestScenario(runDir)}: the run used a scenario with sha256 000000000000…, the repository holds`,
    );
  });

  it('recomputes from the run directory: recomputeRun lists every difference in file order', async () => {
    const runDir = copyRun(stored);
    const first = editJsonLine<UnitRecord>(
      records(runDir),
      (r) => r.status === 'ok' && r.parsedAction !== null,
      (r) => {
        r.parsedAction = otherAction(r);
      },
    );
    const second = editJsonLine<UnitRecord>(
      records(runDir),
      (r) => r.unitId !== first.row.unitId && r.context.labels.length > 0,
      (r) => {
        r.context.exposed = !r.context.exposed;
      },
    );
    const { differences } = await recomputeRun(loadRun(runDir));
    const at = (line: number) => differences.filter((d) => d.line === line).map((d) => d.field);
    expect(at(first.line)).toEqual(['parsedAction']);
    expect(at(second.line)).toEqual(['context.exposed']);
    expect(differences.map((d) => d.line)).toEqual(
      [...differences.map((d) => d.line)].sort((a, b) => (a ?? Infinity) - (b ?? Infinity)),
    );
  });
});

const manifestScenario = (runDir: string) =>
  (JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest).scenarios[0]!.id;
