// The contract generalises (issue #27): a throwaway suite written in this test goes through the one runner (run,
// resume, --limit, --shard), pnpm verify-run and the report path with nothing of it registered anywhere else.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { main as verifyRun } from '../../analysis/verify-run-command.js';
import { reportSuiteRun } from '../../analysis/suite-report-run.js';
import type { SuiteReportV1, SuiteUnit, SuiteV1 } from '../run/suite.js';
import { createRedactor, environmentSecrets } from '../run/redact.js';
import { runSuite } from './run-suite.js';

const out = mkdtempSync(join(tmpdir(), 'throwaway-suite-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const squaresArgs = z.object({ n: z.number().int().positive() });
type SquaresArgs = z.infer<typeof squaresArgs>;
interface Summary {
  total: number;
  units: number;
}
const squaresReport: SuiteReportV1<Summary> = {
  suite: 'squares',
  render: (summary) => ({ 'squares.md': `total ${summary.total} over ${summary.units}\n` }),
  text: (summary) => `total ${summary.total}`,
};
const ran: string[] = [];
const squares: SuiteV1<SquaresArgs, SuiteUnit & { i: number }, { square: number }, Summary> = {
  specificationVersion: 'v1',
  id: 'squares',
  args: squaresArgs,
  plan: ({ n }) => Array.from({ length: n }, (_, i) => ({ id: `sq/${i}`, cell: i % 2 ? 'odd' : 'even', i })),
  async runUnit(unit) {
    ran.push(unit.id);
    return { square: unit.i * unit.i };
  },
  summarize: (records) => ({ total: records.reduce((sum, r) => sum + r.square, 0), units: records.length }),
  exitCode: (summary) => (summary.total > 0 ? 0 : 1),
  report: squaresReport,
};
const silent = () => undefined;

describe('a throwaway suite through the runner, verify-run and report', () => {
  it('runs, resumes without re-running, verifies, and reports', async () => {
    const runDir = join(out, 'whole');
    const first = await runSuite(squares, { args: { n: 5 }, runDir, command: 'test', log: silent });
    expect(first).toMatchObject({ summary: { total: 30, units: 5 }, exitCode: 0, ran: 5, skippedAsDone: 0 });
    ran.length = 0;
    const again = await runSuite(squares, { args: { n: 5 }, runDir, command: 'test', log: silent });
    expect(again).toMatchObject({ summary: { total: 30 }, ran: 0, skippedAsDone: 5 });
    expect(ran).toEqual([]);
    const printed: string[] = [];
    expect(verifyRun([runDir], (line) => printed.push(line), silent)).toBe(0);
    expect(printed.join('\n')).toContain('records.jsonl 5 line(s)');
    const reports = new Map([['squares', squaresReport as SuiteReportV1<unknown>]]);
    const options = { noVerify: false, allowIncomplete: false, out: silent, err: silent, reports };
    expect(reportSuiteRun(runDir, 'squares', options)).toBe(0);
    expect(readFileSync(join(runDir, 'report', 'squares.md'), 'utf8')).toBe('total 30 over 5\n');
    // Another spec in the same directory is refused before anything is written.
    await expect(runSuite(squares, { args: { n: 6 }, runDir, command: 'test', log: silent })).rejects.toThrow(
      /different squares run/,
    );
  });

  it('--limit takes rounds over the cells; --shard splits the units by their ids', async () => {
    const limited = await runSuite(squares, {
      args: { n: 6 },
      runDir: join(out, 'limited'),
      limit: 3,
      command: 'test',
      log: silent,
    });
    expect(limited.summary).toEqual({ total: 0 + 1 + 4, units: 3 }); // sq/0 (even), sq/1 (odd), sq/2 (even)
    const halves = [];
    for (const index of [1, 2])
      halves.push(
        await runSuite(squares, {
          args: { n: 6 },
          runDir: join(out, `shard${index}`),
          shard: { index, count: 2 },
          command: 'test',
          log: silent,
        }),
      );
    expect(halves[0]!.summary.units + halves[1]!.summary.units).toBe(6);
    expect(halves[0]!.summary.total + halves[1]!.summary.total).toBe(55);
  });

  it('opens its directory as eval does: leftover temporaries go, each end is recorded, an unreadable run is refused', async () => {
    const runDir = join(out, 'session');
    await runSuite(squares, { args: { n: 2 }, runDir, command: 'test', log: silent });
    // A kill mid-write leaves the temporary file of an atomic write (json-files.ts) beside the manifest.
    writeFileSync(join(runDir, 'manifest.json.0123abcd.tmp'), '{"half":');
    const lines: string[] = [];
    await runSuite(squares, { args: { n: 2 }, runDir, command: 'test', log: (line) => lines.push(line) });
    expect(readdirSync(runDir)).not.toContain('manifest.json.0123abcd.tmp');
    expect(lines.join('\n')).toContain('removed 1 temporary file(s) left by an earlier invocation');
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.invocations.map((entry: { ended?: { status: string } }) => entry.ended?.status)).toEqual([
      'success',
      'success',
    ]);
    // A unit that throws ends the invocation as `error`, recorded once, and the lock is released for the next one.
    const failing = { ...squares, runUnit: async () => Promise.reject(new Error('store went away')) };
    const failDir = join(out, 'failing');
    await expect(runSuite(failing, { args: { n: 1 }, runDir: failDir, command: 'test', log: silent })).rejects.toThrow(
      'store went away',
    );
    const failed = JSON.parse(readFileSync(join(failDir, 'manifest.json'), 'utf8'));
    expect(failed.invocations.map((entry: { ended?: { status: string } }) => entry.ended?.status)).toEqual(['error']);
    expect(existsSync(join(failDir, 'eval.lock'))).toBe(false);
    // A manifest of a run-log version this code cannot read is not extended: refused, nothing written.
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ ...manifest, version: 99 }));
    const before = readFileSync(join(runDir, 'records.jsonl'), 'utf8');
    await expect(runSuite(squares, { args: { n: 2 }, runDir, command: 'test', log: silent })).rejects.toThrow(
      /run-log version 99 was written by a newer stalebench/,
    );
    expect(readFileSync(join(runDir, 'records.jsonl'), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).version).toBe(99);
  });

  it('two invocations on one directory at once: the second is refused naming the first, which finishes every unit once', async () => {
    const runDir = join(out, 'two-at-once');
    let started!: () => void;
    const firstUnitStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const units: string[] = [];
    const gated = {
      ...squares,
      async runUnit(unit: SuiteUnit & { i: number }) {
        units.push(unit.id);
        started();
        await gate;
        return { square: unit.i * unit.i };
      },
    };
    const first = runSuite(gated, { args: { n: 3 }, runDir, command: 'first', log: silent });
    await firstUnitStarted;
    const manifestBefore = readFileSync(join(runDir, 'manifest.json'), 'utf8');
    await expect(runSuite(gated, { args: { n: 3 }, runDir, command: 'second', log: silent })).rejects.toThrow(
      new RegExp(`is in use by .*pid ${process.pid}`),
    );
    // The refused invocation wrote nothing: not an invocation of the manifest, not a record.
    expect(readFileSync(join(runDir, 'manifest.json'), 'utf8')).toBe(manifestBefore);
    release();
    expect(await first).toMatchObject({ summary: { total: 5, units: 3 }, ran: 3, skippedAsDone: 0 });
    expect(units).toEqual(['sq/0', 'sq/1', 'sq/2']);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.invocations).toHaveLength(1);
    expect(readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    expect(existsSync(join(runDir, 'eval.lock'))).toBe(false);
  });

  it('writes no secret: records, summary and an error are redacted, and the summary is what a re-read computes', async () => {
    const runDir = join(out, 'secrets');
    const env = {
      NEO4J_PASSWORD: 'neo4j-hunter2',
      STALEBENCH_POSTGRES_URI: 'postgresql://bench:pg%2Fs3cret@db:5432/agmi',
      HOME: '/home/user',
    };
    const redact = createRedactor(environmentSecrets(env));
    // A store description and an error that echo the settings, as drivers do.
    const leaky: SuiteV1<
      SquaresArgs,
      SuiteUnit & { i: number },
      { store: string; square: number },
      Summary & { stores: string[] }
    > = {
      ...squares,
      ci: undefined, // squares' summary has no stores: this suite is offered to CI with none
      runUnit: async (unit) => ({
        store: `PostgreSQL 16 at ${env.STALEBENCH_POSTGRES_URI} (password pg/s3cret), neo4j:${env.NEO4J_PASSWORD}`,
        square: unit.i * unit.i,
      }),
      summarize: (records) => ({
        total: records.reduce((sum, r) => sum + r.square, 0),
        units: records.length,
        stores: records.map((r) => r.store),
      }),
      report: squaresReport as unknown as SuiteReportV1<Summary & { stores: string[] }>,
    };
    const first = await runSuite(leaky, { args: { n: 2 }, runDir, command: 'test', log: silent, redact });
    const written = ['records.jsonl', 'summary.json', 'manifest.json'].map((file) =>
      readFileSync(join(runDir, file), 'utf8'),
    );
    for (const text of written)
      for (const secret of ['neo4j-hunter2', 'pg%2Fs3cret', 'pg/s3cret']) expect(text).not.toContain(secret);
    expect(first.summary.stores[0]).toBe(
      'PostgreSQL 16 at postgresql://bench:[redacted]@db:5432/agmi (password [redacted]), neo4j:[redacted]',
    );
    // A resume computes its summary from the stored records: the same as the first invocation's.
    const again = await runSuite(leaky, { args: { n: 2 }, runDir, command: 'test', log: silent, redact });
    expect(again.skippedAsDone).toBe(2);
    expect(again.summary).toEqual(first.summary);
    // An error message is redacted in the manifest too.
    const failDir = join(out, 'secrets-failing');
    const failing = {
      ...squares,
      runUnit: async () => Promise.reject(new Error(`auth failed for ${env.STALEBENCH_POSTGRES_URI}`)),
    };
    await expect(
      runSuite(failing, { args: { n: 1 }, runDir: failDir, command: 'test', log: silent, redact }),
    ).rejects.toThrow();
    const manifest = readFileSync(join(failDir, 'manifest.json'), 'utf8');
    expect(manifest).toContain('auth failed for postgresql://bench:[redacted]@db:5432/agmi');
    expect(manifest).not.toContain('pg%2Fs3cret');
  });

  it("by default redacts this process's environment secrets", async () => {
    const runDir = join(out, 'env-default');
    process.env.STALEBENCH_TEST_PASSWORD = 'from-the-environment-42';
    try {
      const echo = { ...squares, runUnit: async () => ({ square: 0, said: process.env.STALEBENCH_TEST_PASSWORD }) };
      await runSuite(echo, { args: { n: 1 }, runDir, command: 'test', log: silent });
    } finally {
      delete process.env.STALEBENCH_TEST_PASSWORD;
    }
    const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8');
    expect(records).toContain('"said":"[redacted]"');
    expect(records).not.toContain('from-the-environment-42');
  });
});
