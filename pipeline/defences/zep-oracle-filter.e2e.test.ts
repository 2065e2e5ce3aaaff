// Issue #29 item 3: the zep-oracle-filter arms reproduce the paper harness's Zep cells (its hypothetical filtered read
// from the oracle's labels) on the same stored replies; n/a on systems without oracle labels; labelled everywhere.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Summary } from '../../analysis/grid/summarize.js';
import { main as reportMain } from '../../analysis/report-command.js';
import { main as rescoreMain } from '../../analysis/rescore-command.js';
import { main } from '../cli/cli.js';
import type { ProbeRecord, UnitRecord } from '../run-log/run-log.js';

const ARMS = 'none,store-filter,guard,zep-oracle-filter,zep-oracle-output-filter,zep-oracle-filter-hardening';

/** The harness's output-filter tokens, written out here (not imported): lowercase `[a-z0-9]+`, length > 3. */
const tokens = (text: string) => new Set((text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => t.length > 3));

describe('zep-oracle-filter: the harness rule for Zep, labelled hypothetical', () => {
  let runDir: string;
  let stdout: string;
  let code: number;
  let probes: ProbeRecord[];
  let records: UnitRecord[];
  let summary: Summary;
  beforeAll(async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-zep-oracle-'));
    const logged: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...parts) => void logged.push(parts.join(' ')));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    code = await main(
      [
        'eval',
        '--model',
        'sim',
        '--trials',
        '1',
        '--out',
        out,
        '--systems',
        'zep-ce,graphiti',
        '--modes',
        'natural',
        '--arms',
        ARMS,
      ],
      {},
    );
    vi.restoreAllMocks();
    stdout = logged.join('\n');
    runDir = join(out, readdirSync(out)[0]!);
    const lines = <T>(file: string) =>
      readFileSync(join(runDir, file), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as T);
    probes = lines<ProbeRecord>('setup.jsonl');
    records = lines<UnitRecord>('records.jsonl');
    summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
  }, 600_000);
  afterAll(() => vi.restoreAllMocks());

  /** The harness rule from the oracle labels: revoked = default-read facts labelled revoked; filtered = the rest. */
  const harness = (probe: ProbeRecord) => {
    const read = probe.defaultRead ?? [];
    const labels = probe.defaultLabels ?? [];
    return {
      revoked: read.filter((_, i) => labels[i] === true).map((r) => r.text),
      filtered: read.filter((_, i) => labels[i] !== true).map((r) => r.text),
    };
  };
  const zepProbes = () => probes.filter((p) => p.system === 'zep-ce' && p.status === 'ok');
  const unit = (arm: string, scenario: string) =>
    records.find((r) => r.key.system === 'zep-ce' && r.key.arm === arm && r.key.scenario === scenario)!;

  it('runs, and Zep hides revocations its oracle sees (else the test could not fail)', () => {
    expect(code).toBe(0);
    expect(zepProbes().length).toBeGreaterThan(0);
    expect(zepProbes().some((p) => harness(p).revoked.length > 0)).toBe(true);
  });

  it('the filtered read and the hardened filtered read are the facts the oracle marks not revoked', () => {
    for (const probe of zepProbes())
      for (const arm of ['zep-oracle-filter', 'zep-oracle-filter-hardening']) {
        const record = unit(arm, probe.scenario);
        expect(record.context.read).toBe('oracle-filtered');
        expect(record.context.records.map((r) => r.text)).toEqual(harness(probe).filtered);
        expect(record.context.exposed).toBe(false);
      }
    // The default store-filter stays CE's: no filtered read, the default read.
    for (const probe of zepProbes())
      expect(unit('store-filter', probe.scenario).context.records.map((r) => r.text)).toEqual(
        (probe.defaultRead ?? []).map((r) => r.text),
      );
  });

  it("the output filter blocks the none reply on the oracle's revoked facts, as the harness rule gives", () => {
    let unsafeExpected = 0;
    for (const probe of zepProbes()) {
      const none = unit('none', probe.scenario);
      const reply = tokens(none.reply?.text ?? '');
      const blocked =
        none.scores.unsafe === true &&
        harness(probe).revoked.some((fact) => {
          const f = tokens(fact);
          return f.size > 0 && [...f].filter((t) => reply.has(t)).length / f.size >= 0.5;
        });
      if (none.scores.unsafe === true && !blocked) unsafeExpected += 1;
      const trace = unit('zep-oracle-output-filter', probe.scenario).reviews?.['zep-oracle-output-filter'] as
        | { blocked: boolean; revokedFacts: string[] }
        | undefined;
      expect(trace?.blocked, probe.scenario).toBe(blocked);
      expect(trace?.revokedFacts).toEqual(harness(probe).revoked);
    }
    const cell = summary.cells.find((c) => c.system === 'zep-ce' && c.arm === 'zep-oracle-output-filter')!;
    expect(cell.unsafe.k).toBe(unsafeExpected);
  });

  it("Table 9's hypothetical row counts the guard's catches of oracle-revoked facts as catches", () => {
    const expected = { revokedPresent: 0, revokedCaught: 0, currentTotal: 0, currentWithheld: 0 };
    for (const probe of zepProbes()) {
      const { revoked, filtered } = harness(probe);
      const withheld = new Set(probe.guard?.withheldTexts ?? []);
      expected.revokedPresent += revoked.length;
      expected.revokedCaught += revoked.filter((f) => withheld.has(f)).length;
      expected.currentTotal += new Set(filtered).size;
      expected.currentWithheld += [...withheld].filter((t) => filtered.includes(t)).length;
    }
    const oracleRow = summary.guardMetrics.find((m) => m.system === 'zep-ce' && m.revokedBy === 'oracle');
    expect(oracleRow).toEqual({ system: 'zep-ce', mode: 'natural', revokedBy: 'oracle', ...expected });
    // The default row is unchanged: CE has no filtered read, so nothing counts as revoked there.
    const plain = summary.guardMetrics.find((m) => m.system === 'zep-ce' && m.revokedBy === undefined);
    expect(plain?.revokedPresent).toBe(0);
  });

  it('is n/a, with the reason, on a system whose labels are not the oracle', () => {
    expect(records.some((r) => r.key.system === 'graphiti' && r.key.arm.startsWith('zep-oracle'))).toBe(false);
    for (const arm of ['zep-oracle-filter', 'zep-oracle-output-filter', 'zep-oracle-filter-hardening']) {
      const cell = summary.cells.find((c) => c.system === 'graphiti' && c.arm === arm)!;
      expect(cell.status).toBe('n/a');
      expect(cell.reason).toMatch(/oracle/);
    }
  });

  it('says hypothetical (oracle) on the summary cells and the terminal table', () => {
    for (const arm of ['zep-oracle-filter', 'zep-oracle-output-filter', 'zep-oracle-filter-hardening']) {
      const cell = summary.cells.find((c) => c.system === 'zep-ce' && c.arm === arm)!;
      expect(cell.defence).toContain('hypothetical (oracle)');
    }
    expect(stdout).toContain('hypothetical (oracle)');
    expect(stdout).toMatch(/zep-ce\s+natural\s+hypothetical \(oracle\), revoked = oracle labels/);
  });

  it('rescores to the stored records (the reused none reply included), and the report says hypothetical (oracle)', async () => {
    const printed: string[] = [];
    const write = (line: string) => void printed.push(line);
    expect(await rescoreMain([runDir, '--check'], write, write), printed.join('\n')).toBe(0);
    const reportDir = mkdtempSync(join(tmpdir(), 'stalebench-zep-oracle-report-'));
    expect(await reportMain([runDir, '-o', reportDir], write, write), printed.join('\n')).toBe(0);
    for (const file of ['tables.md', 'tables.csv', 'index.html'])
      expect(readFileSync(join(reportDir, file), 'utf8'), file).toContain('hypothetical (oracle)');
  });
});
