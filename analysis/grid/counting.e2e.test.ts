// Acceptance (issue 11, items 5 and 7): one grid against a local server that returns unparseable replies and one
// error, with --guard off,on --poem off,on; the terminal table, summary.json and the report (md, csv, tex, html)
// give the same counts for every cell, counted as the paper does, and the PoEM cells say "enforced (by construction)".
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as evalMain } from '../../pipeline/cli/cli.js';
import type { UnitRecord } from '../../pipeline/run-log/run-log.js';
import { startOpenAICompatibleServer, type TestServer } from '../../pipeline/test-support/openai-compatible-server.js';
import { parsePrintedTable } from '../../pipeline/test-support/terminal-table.js';
import { loadScenarios } from '../../scenarios/index.js';
import { defenceLabel } from '../defence-label.js';
import { main as reportMain } from '../report-command.js';
import type { Summary, SummaryCell } from './summarize.js';

const scenarios = await loadScenarios();
const SCENARIOS = ['mfa_waiver_access', 'guardrail_bypass_disclose_card', 'data_exfiltration_pii_export'];
/** This scenario's replies never name an action: every one is a parse failure. */
const UNPARSEABLE = 'guardrail_bypass_disclose_card';
/** The request (0-based, concurrency 1) that gets a non-retryable HTTP 400: one errored unit. */
const FAILING_REQUEST = 5;

/** Minimal RFC 4180 reader: quoted fields, doubled quotes, commas and newlines inside quotes. */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [[]];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      rows.at(-1)!.push(field);
      field = '';
    } else if (char === '\n') {
      rows.at(-1)!.push(field);
      field = '';
      rows.push([]);
    } else field += char;
  }
  if (field !== '' || rows.at(-1)!.length > 0) rows.at(-1)!.push(field);
  const [header, ...body] = rows.filter((r) => r.length > 1);
  return body.map((r) => Object.fromEntries(header!.map((name, i) => [name, r[i] ?? ''])));
}

let server: TestServer;
let runDir: string;
let terminal: string;
let summary: Summary;
let records: UnitRecord[];
let reportDir: string;
let reportCode: number;

beforeAll(async () => {
  server = await startOpenAICompatibleServer((request, index) => {
    if (index === FAILING_REQUEST) return { status: 400, error: { message: 'scripted bad request' } };
    const user = request.body.messages![1]!.content;
    const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`))!;
    if (scenario.id === UNPARSEABLE) return { content: 'I would rather not decide this one.' };
    // Perverse on purpose: safe while the revoked record is in context, unsafe once the guard removed it. The
    // guard-off gated unit then records its safety step first, which used to back its guard-on sibling's skip.
    return { content: `{"action": "${user.includes(scenario.v1) ? scenario.actions[1] : scenario.actions[0]}"}` };
  });
  const out = mkdtempSync(join(tmpdir(), 'stalebench-counting-'));
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts) => void lines.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const args = [
    '--model',
    'local-model',
    '--yes',
    '--systems',
    'graphiti',
    '--modes',
    'direct',
    '--arms',
    'none,store-filter',
    '--guard',
    'off,on',
    '--poem',
    'off,on',
    '--scenarios',
    SCENARIOS.join(','),
    '--trials',
    '2',
    '--concurrency',
    '1',
    '--no-cache',
    '--max-error-rate',
    '1',
    '--out',
    out,
  ];
  const code = await evalMain(['eval', ...args], {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: 'sk-test-counting',
  });
  vi.restoreAllMocks();
  // Issue #26 item 7: a run that completes with a unit still failed (the 400 is not retried: it would be refused
  // again) exits 4, not 0.
  expect(code).toBe(4);
  terminal = lines.join('\n');
  runDir = join(out, readdirSync(out)[0]!);
  summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
  records = readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);
  reportDir = join(out, 'report');
  reportCode = await reportMain(
    [runDir, '-o', reportDir],
    () => undefined,
    () => undefined,
  );
}, 120_000);
afterAll(async () => server?.close());

/** The counts of a cell recomputed here from records.jsonl, independently of analysis/. */
function recount(cell: Pick<SummaryCell, 'arm' | 'guard' | 'poem'>) {
  const mine = records.filter(
    (r) => r.key.arm === cell.arm && r.key.guard === (cell.guard === 'on') && r.key.poem === (cell.poem === 'on'),
  );
  const completed = mine.filter((r) => r.status === 'ok');
  const parseFailures = completed.filter((r) => r.scores.parseFailure).length;
  const unsafe = completed.filter((r) => r.scores.unsafe === true && !r.scores.parseFailure).length;
  return {
    k: unsafe,
    n: completed.length,
    parseFailures,
    errors: mine.length - completed.length,
    parsedN: completed.length - parseFailures,
  };
}

describe('one way of counting, on every surface', () => {
  it('the run has parse failures, an error, and every guard × PoEM cell', () => {
    expect(summary.cells).toHaveLength(2 * 4);
    expect(records.filter((r) => r.status === 'error')).toHaveLength(1);
    expect(records.filter((r) => r.status === 'ok' && r.scores.parseFailure).length).toBeGreaterThanOrEqual(8);
    expect(reportCode).toBe(0);
  });

  it("summary.json: unsafe is the paper's k/n (n = completed, parse failures inside, errors outside), unsafeAmongParsed the second rate", () => {
    for (const cell of summary.cells) {
      const expected = recount(cell);
      expect(cell.unsafe, cell.defence).toMatchObject({ k: expected.k, n: expected.n });
      expect(cell.unsafeAmongParsed, cell.defence).toMatchObject({ k: expected.k, n: expected.parsedN });
      expect([cell.parseFailures, cell.errors], cell.defence).toEqual([expected.parseFailures, expected.errors]);
      expect(cell).not.toHaveProperty('unsafeReference');
    }
  });

  it('the terminal table shows the same headline, parse failures, errors and unsafe | parsed, with readable defence labels', () => {
    // The table fits 120 columns (issue #26 item 13): read back with its wrapped cells and stacked headers joined.
    const { header, rows } = parsePrintedTable(terminal);
    expect(header).toEqual(expect.arrayContaining(['defence', 'unsafe', 'parse fail', 'errors', 'unsafe | parsed']));
    expect(rows.every((row) => row.model === 'local-model')).toBe(true);
    expect(rows).toHaveLength(summary.cells.length);
    for (const cell of summary.cells) {
      const row = rows.find((r) => r.cells.defence === cell.defence);
      expect(row, cell.defence).toBeDefined();
      const columns = row!.cells;
      const expected = recount(cell);
      if (cell.poem === 'on') expect(columns.unsafe).toBe('enforced (by construction)');
      else {
        expect(columns.unsafe).toBe(`${expected.k}/${expected.n}`);
        expect(columns['unsafe | parsed']).toMatch(new RegExp(`^${expected.k}/${expected.parsedN}( |$)`));
      }
      expect([columns['parse fail'], columns.errors]).toEqual([
        String(expected.parseFailures),
        String(expected.errors),
      ]);
    }
    expect(rows.map((row) => row.cells.defence)).toContain('store filter + stale guard + PoEM gate');
    expect(terminal).not.toMatch(/\+guard|\+poem/);
  });

  it("the report's defence table (md, csv, tex, html) has every cell of the run, with the same counts", () => {
    const markdown = readFileSync(join(reportDir, 'tables.md'), 'utf8');
    const csv = parseCsv(readFileSync(join(reportDir, 'tables.csv'), 'utf8')).filter((r) => r.table === 'defence');
    const latex = readFileSync(join(reportDir, 'tables.tex'), 'utf8');
    const html = readFileSync(join(reportDir, 'index.html'), 'utf8');
    expect(markdown).toContain('## Defence table:');
    for (const cell of summary.cells) {
      const label = `graphiti, direct: ${defenceLabel(cell)}`;
      const expected = recount(cell);
      const at = (column: string) => csv.find((r) => r.row === label && r.column === column);
      const unsafe = at('unsafe');
      expect(unsafe, label).toBeDefined();
      expect([unsafe!.k, unsafe!.n, unsafe!.parse_failures, unsafe!.errors], label).toEqual(
        [expected.k, expected.n, expected.parseFailures, expected.errors].map(String),
      );
      expect([at('parse failures')!.value, at('errors')!.value]).toEqual([
        String(expected.parseFailures),
        String(expected.errors),
      ]);
      expect([at('unsafe | parsed')!.k, at('unsafe | parsed')!.n]).toEqual([
        String(expected.k),
        String(expected.parsedN),
      ]);
      const mdRow = markdown
        .split('\n')
        .find((line) => line.startsWith(`| ${label} |`))!
        .split(' | ');
      expect(mdRow[2]).toBe(String(expected.parseFailures));
      expect(mdRow[3]).toBe(String(expected.errors));
      expect(latex).toContain(label);
      expect(html).toContain(`data-row="${label}" data-column="unsafe"`);
      if (cell.poem === 'on') {
        expect(unsafe!.status).toBe('by-construction');
        expect(unsafe!.rate).toBe('');
        expect(mdRow[1]).toBe('enforced (by construction)');
      } else {
        expect(unsafe!.status).toBe('ok');
        expect(mdRow[1]).toMatch(new RegExp(`^${expected.k}/${expected.n} \\(`));
      }
    }
    expect(markdown).not.toMatch(/\+guard|\+poem/);
  });

  it('Table 6 and the terminal give the same headline for the ungated cells', () => {
    const csv = parseCsv(readFileSync(join(reportDir, 'tables.csv'), 'utf8'));
    for (const [arm, column] of [
      ['none', 'no defense'],
      ['store-filter', 'filter'],
    ] as const) {
      const expected = recount({ arm, guard: 'off', poem: 'off' });
      const cell = csv.find((r) => r.table === '6' && r.row === 'graphiti' && r.column === column)!;
      expect([cell.k, cell.n, cell.parse_failures, cell.errors, cell.unsafe_among_parsed_n]).toEqual(
        [expected.k, expected.n, expected.parseFailures, expected.errors, expected.parsedN].map(String),
      );
    }
  });

  it("the PoEM gate allows a grid skip only after the unit's own prior step: a guard-off unit's step cannot back its guard-on sibling (subjectOf)", () => {
    const gated = records.filter((r) => r.status === 'ok' && r.key.poem && r.poem);
    expect(
      gated.some(
        (r) => r.key.guard && r.poem!.proposedAction === scenarios.find((s) => s.id === r.key.scenario)!.actions[0],
      ),
    ).toBe(true);
    expect(gated.filter((r) => r.poem!.verdict === 'allowed' && !r.priorSafetyStep)).toEqual([]);
    for (const cell of summary.cells.filter((c) => c.poem === 'on'))
      expect(cell.poemEnforcement?.kind, cell.defence).toBe('by-construction');
  });
});
