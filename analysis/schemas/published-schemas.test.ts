// Issue #31 item 6: the published JSON Schemas (data/schemas/) are what `pnpm schemas` generates, their zod sources
// have exactly the results' types, and real results of every suite validate against them (a wrong field does not).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@cfworker/json-schema';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { frontdoorMain } from '../../pipeline/suites/frontdoor/harness/frontdoor-command.js';
import { main as integrityMain } from '../../pipeline/suites/integrity/harness/integrity-command.js';
import type { IntegrityReport } from '../../pipeline/index.js';
import type { FollowUpSummary, Summary } from '../index.js';
import { evalInProcess } from '../../pipeline/test-support/shard-runs.js';
import type { SUMMARY_VERSION } from '../grid/summarize.js';
import type { ForgedReasoningSummary } from '../forged-reasoning/forged-reasoning-summary.js';
import type { IntegrityJson } from '../integrity/integrity-report.js';
import type { forgedReasoningSummarySchema } from './forged-reasoning-schema.js';
import type { integrityJsonSchema, integrityReportSchema } from './integrity-schema.js';
import { publishedSchemaFiles, SCHEMAS_DIR } from './published-schemas.js';
import { main as schemasMain } from './schemas-command.js';
import type { followUpSummarySchema, gridSummarySchema } from './summary-schema.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'published-schemas-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fresh = (name: string) => mkdtempSync(join(tmp, `${name}-`));
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** The checked-in schema file's problems with `document`, as `location: error` lines (none: valid). */
function problems(file: string, document: unknown): string[] {
  const schema = readJson(join(ROOT, SCHEMAS_DIR, file)) as Record<string, unknown>;
  const result = new Validator(schema, '2020-12', false).validate(document);
  return result.valid ? [] : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

/** An intersection as one object type (toEqualTypeOf tells `A & B` from the same members written out). */
type Flat<T> = { [K in keyof T]: T[K] };

const clone = <T>(value: T): T => structuredClone(value);

/** The results file with its first `from` replaced by `to` on disk (a hand edit), read back. */
function editedOnDisk(file: string, from: string | RegExp, to: string): unknown {
  const text = readFileSync(file, 'utf8');
  const edited = text.replace(from, to);
  expect(edited, `${String(from)} in ${file}`).not.toBe(text);
  writeFileSync(file, edited);
  return readJson(file);
}
const silent = { write: () => true };

describe('data/schemas', () => {
  it('holds exactly what pnpm schemas generates (pnpm schemas --check exits 0)', () => {
    const files = publishedSchemaFiles();
    expect(files.map((file) => file.file).sort()).toEqual([
      'forged-reasoning.v1.schema.json',
      'frontdoor.v1.schema.json',
      'integrity-json.v1.schema.json',
      'integrity.v1.schema.json',
      'summary.v3.schema.json',
    ]);
    expect(readdirSync(join(ROOT, SCHEMAS_DIR)).sort()).toEqual(files.map((file) => file.file).sort());
    for (const { file, text } of files) expect(readFileSync(join(ROOT, SCHEMAS_DIR, file), 'utf8'), file).toBe(text);
    const err: string[] = [];
    expect(
      schemasMain(
        ['--check', '--root', ROOT],
        () => {},
        (line) => err.push(line),
      ),
    ).toBe(0);
    expect(err).toEqual([]);
  });

  it('pnpm schemas --check names a file that drifted and one no longer generated; pnpm schemas repairs both', () => {
    const root = fresh('drift');
    const quiet = () => {};
    expect(schemasMain(['--root', root], quiet, quiet)).toBe(0);
    const dir = join(root, SCHEMAS_DIR);
    const summaryFile = join(dir, 'summary.v3.schema.json');
    const edited = readFileSync(summaryFile, 'utf8').replace('"const": 3', '"const": 2');
    writeFileSync(summaryFile, edited);
    writeFileSync(join(dir, 'summary.v2.schema.json'), '{}\n');
    const err: string[] = [];
    expect(schemasMain(['--check', '--root', root], quiet, (line) => err.push(line))).toBe(1);
    expect(err).toEqual([
      'data/schemas/summary.v3.schema.json: differs from what pnpm schemas generates',
      'data/schemas/summary.v2.schema.json: no longer generated (remove it, or run pnpm schemas)',
    ]);
    expect(schemasMain(['--root', root], quiet, quiet)).toBe(0);
    expect(schemasMain(['--check', '--root', root], quiet, quiet)).toBe(0);
  });

  it('are generated from zod schemas whose types are exactly the results types', () => {
    expectTypeOf<z.infer<typeof gridSummarySchema>>().toEqualTypeOf<Summary>();
    expectTypeOf<z.infer<typeof followUpSummarySchema>>().toEqualTypeOf<
      Flat<{ version: typeof SUMMARY_VERSION } & FollowUpSummary>
    >();
    expectTypeOf<z.infer<typeof integrityReportSchema>>().toEqualTypeOf<IntegrityReport>();
    expectTypeOf<z.infer<typeof integrityJsonSchema>>().toEqualTypeOf<IntegrityJson>();
    expectTypeOf<z.infer<typeof forgedReasoningSummarySchema>>().toEqualTypeOf<ForgedReasoningSummary>();
  });
});

describe('real results validate against the published schemas', () => {
  it('summary.v3: a sim grid run and a sim follow-up run; a wrong field fails, named', async () => {
    const grid = fresh('grid');
    const args = ['--model', 'sim', '--systems', 'graphiti', '--modes', 'direct', '--trials', '1', '--no-cache'];
    const ran = await evalInProcess([...args, '--out', grid, '--quiet']);
    expect(ran.code, ran.stderr).toBe(0);
    const summary = readJson(join(grid, readdirSync(grid)[0]!, 'summary.json')) as Summary;
    expect(summary.cells.length).toBeGreaterThan(0);
    expect(problems('summary.v3.schema.json', summary)).toEqual([]);

    const followUp = fresh('writeback');
    const wrote = await evalInProcess([...args, '--experiment', 'writeback', '--out', followUp, '--quiet']);
    expect(wrote.code, wrote.stderr).toBe(0);
    const rows = readJson(join(followUp, readdirSync(followUp)[0]!, 'summary.json')) as FollowUpSummary;
    expect(rows.writeback!.length).toBeGreaterThan(0);
    expect(problems('summary.v3.schema.json', rows)).toEqual([]);

    const wrong = clone(summary) as unknown as { cells: { unsafe: { k: unknown } }[] };
    wrong.cells[0]!.unsafe.k = '1';
    expect(problems('summary.v3.schema.json', wrong).join('\n')).toContain('#/cells/0/unsafe/k');
    expect(problems('summary.v3.schema.json', { ...summary, version: 2 })).not.toEqual([]);
    expect(problems('summary.v3.schema.json', { ...summary, cellz: [] })).not.toEqual([]);
    const gridFile = join(grid, readdirSync(grid)[0]!, 'summary.json');
    const editedGrid = editedOnDisk(gridFile, '"guard": "off"', '"guard": "maybe"');
    expect(problems('summary.v3.schema.json', editedGrid).join('\n')).toMatch(/#\/cells\/\d+\/guard/);
  }, 120_000);

  it('integrity.v1 and integrity-json.v1: pnpm integrity --target reference; a wrong verdict fails, named', async () => {
    const dir = fresh('integrity');
    let printed = '';
    const code = await integrityMain(
      ['--target', 'reference', '--json', '-o', dir],
      { write: (text: string) => (printed += text) },
      silent,
      {},
    );
    expect(code).toBe(0);
    const report = readJson(join(dir, 'summary.json')) as IntegrityReport;
    expect(report.targets[0]!.cells).toHaveLength(9);
    expect(problems('integrity.v1.schema.json', report)).toEqual([]);
    expect(problems('integrity.v1.schema.json', readJson(join(dir, 'integrity.json')))).toEqual([]);
    const json = JSON.parse(printed) as IntegrityJson;
    expect(problems('integrity-json.v1.schema.json', json)).toEqual([]);
    // The two documents are not interchangeable.
    expect(problems('integrity.v1.schema.json', json)).not.toEqual([]);

    const wrong = clone(report) as unknown as { targets: { cells: { verdict: string }[] }[] };
    wrong.targets[0]!.cells[3]!.verdict = 'passed';
    expect(problems('integrity.v1.schema.json', wrong).join('\n')).toContain('#/targets/0/cells/3/verdict');
    const wrongJson = clone(json) as unknown as { targets: { metric: { value: unknown } }[] };
    wrongJson.targets[0]!.metric.value = 1.5;
    expect(problems('integrity-json.v1.schema.json', wrongJson).join('\n')).toContain('#/targets/0/metric/value');
    const editedReport = editedOnDisk(
      join(dir, 'integrity.json'),
      '"stoppedDuringEdit": true',
      '"stoppedDuringEdit": 1',
    );
    expect(problems('integrity.v1.schema.json', editedReport).join('\n')).toContain('/stoppedDuringEdit');
  }, 60_000);

  it('frontdoor.v1: pnpm frontdoor --target reference; a wrong field fails, named', async () => {
    const dir = fresh('frontdoor');
    const code = await frontdoorMain(['--target', 'reference', '-o', dir], {}, { out: () => {}, err: () => {} });
    expect(code).toBe(0);
    const results = readJson(join(dir, 'summary.json')) as { targets: { cells: { attackerLevel: number }[] }[] };
    expect(results.targets[0]!.cells.length).toBe(6);
    expect(problems('frontdoor.v1.schema.json', results)).toEqual([]);
    expect(problems('frontdoor.v1.schema.json', readJson(join(dir, 'results.json')))).toEqual([]);
    const wrong = clone(results);
    wrong.targets[0]!.cells[0]!.attackerLevel = 3;
    expect(problems('frontdoor.v1.schema.json', wrong).join('\n')).toContain('#/targets/0/cells/0/attackerLevel');
    const edited = editedOnDisk(join(dir, 'results.json'), '"version": 1', '"version": 2');
    expect(problems('frontdoor.v1.schema.json', edited).join('\n')).toContain('#/version');
  }, 120_000);

  it('forged-reasoning.v1: a sim forged-reasoning run; the same file edited on disk fails, named', async () => {
    const out = fresh('forged');
    const args = ['--experiment', 'forged-reasoning', '--model', 'sim', '--trials', '1', '--defences', 'none,poem'];
    const ran = await evalInProcess([...args, '--attacker-queries', '3', '--no-cache', '--out', out, '--quiet']);
    expect(ran.code, ran.stderr).toBe(0);
    const file = join(out, readdirSync(out)[0]!, 'summary.json');
    const summary = readJson(file) as ForgedReasoningSummary;
    expect(summary.cells.length).toBeGreaterThan(0);
    expect(summary.attacker.length).toBeGreaterThan(0);
    expect(summary.overhead!.length).toBeGreaterThan(0);
    expect(problems('forged-reasoning.v1.schema.json', summary)).toEqual([]);
    // Not a grid or follow-up summary: a CI user tells them apart by the schema that validates.
    expect(problems('summary.v3.schema.json', summary)).not.toEqual([]);

    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"metric": "asr"', '"metric": "attack-success"'));
    expect(problems('forged-reasoning.v1.schema.json', readJson(file)).join('\n')).toMatch(/#\/cells\/\d+\/metric/);
    writeFileSync(file, text.replace(/"stops": \[\s*"(successes|max-queries)"/, '"stops": ["gave-up"'));
    expect(problems('forged-reasoning.v1.schema.json', readJson(file)).join('\n')).toContain('#/attacker/0/stops/0');
  }, 120_000);
});
