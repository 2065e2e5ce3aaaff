// Opens the HTML report in headless Debian Chromium: every table, figure and the sim banner render, offline.
import { DEFAULT_RUN_CONTROL } from '../pipeline/run/run-spec.js';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunManifest } from '../pipeline/run-log/run-log.js';
import { figuresFor } from './grid/figures.js';
import { renderHtmlReport, tableAnchor } from './html-report.js';
import type { Dependence, DiffCell, PaperDiff, PaperTable, TableCell } from './paper-table.js';
import type { PaperTableId } from './tables/index.js';
import { wilson } from './statistics.js';

/** The few browser globals the page-side callbacks use: the project compiles without the DOM lib. */
interface PageElement {
  tagName: string;
  textContent: string | null;
  outerHTML: string;
  dataset: Record<string, string | undefined>;
  getBoundingClientRect(): { width: number; height: number };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
}
declare const document: Pick<PageElement, 'querySelector' | 'querySelectorAll'> & {
  getElementById(id: string): PageElement | null;
  images: { length: number };
  scripts: { length: number };
};
declare const DOMParser: new () => { parseFromString(text: string, type: string): Pick<PageElement, 'querySelector'> };

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = `mem0 <img src=x onerror="alert(1)"> & 'co'`;

const proportion = (
  row: string,
  column: string,
  k: number,
  n: number,
  dependence: Dependence = 'model-dependent',
): TableCell => ({
  row,
  column,
  k,
  n,
  rate: n === 0 ? null : k / n,
  ...wilson(k, n),
  dependence,
  status: 'ok',
});
const value = (row: string, column: string, v: number, dependence: Dependence = 'model-independent'): TableCell => ({
  row,
  column,
  value: v,
  dependence,
  status: 'ok',
});
const notApplicable = (row: string, column: string, reason: string): TableCell => ({
  row,
  column,
  dependence: 'model-dependent',
  status: 'n/a',
  reason,
});
const table = (
  id: PaperTableId,
  title: string,
  rows: string[],
  columns: string[],
  cells: TableCell[],
  simulated = false,
): PaperTable => ({
  id,
  title,
  rows,
  columns,
  cells,
  simulated,
  runs: [simulated ? 'sim_9f3a2c1d' : 'gpt-5-nano_41c0de77'],
  notes: ['pooled over 2 exposed systems'],
});

const defences = ['no defense', 'filter', 'prompt', 'output', 'filter+prompt', 'guard'];
const table6 = table(
  '6',
  'Single read, direct insertion',
  ['graphiti', HOSTILE, 'cognee', 'pooled (graphiti + mem0 (exp.))'],
  ['exposure', 'rank', ...defences],
  [
    proportion('graphiti', 'exposure', 81, 81, 'model-independent'),
    value('graphiti', 'rank', 1),
    ...[358, 0, 311, 154, 0, 0].map((k, i) => proportion('graphiti', defences[i]!, k, 810)),
    proportion(HOSTILE, 'exposure', 81, 81, 'model-independent'),
    value(HOSTILE, 'rank', 1),
    ...[341, 0, 292, 139, 0, 0].map((k, i) => proportion(HOSTILE, defences[i]!, k, 810)),
    proportion('cognee', 'exposure', 0, 81, 'model-independent'),
    ...defences.map((column) => notApplicable('cognee', column, 'no revoked record returned')),
    ...[699, 0, 603, 293].map((k, i) => proportion('pooled (graphiti + mem0 (exp.))', defences[i]!, k, 1620)),
  ],
);
const models = ['GPT-5.5', 'Grok-4', 'Grok-4-Fast (non-reasoning)', 'column total'];
const table7 = table(
  '7',
  'Per decision model, both exposed systems pooled',
  models,
  ['no defense', 'filter', 'prompt hardening', 'output filter'],
  [
    ...[
      [60, 0, 48, 22],
      [94, 0, 86, 60],
      [27, 0, 17, 21],
      [181, 0, 151, 103],
    ].flatMap((ks, row) =>
      ks.map((k, i) =>
        proportion(
          models[row]!,
          ['no defense', 'filter', 'prompt hardening', 'output filter'][i]!,
          k,
          row === 3 ? 540 : 180,
        ),
      ),
    ),
  ],
);
const table811 = table(
  '8/11',
  'Per scenario, no defence',
  ['with rule: backup deletion', 'no rule: PII export'],
  ['no defense', 'filter'],
  [
    proportion('with rule: backup deletion', 'no defense', 83, 180),
    proportion('with rule: backup deletion', 'filter', 0, 180),
    proportion('no rule: PII export', 'no defense', 170, 180),
  ],
);
const table9 = table(
  '9',
  'Stale-Retrieval Guard per system',
  ['graphiti', 'zep'],
  ['revoked present (direct)', 'caught (direct)', 'current withheld (direct)'],
  [
    value('graphiti', 'revoked present (direct)', 18),
    proportion('graphiti', 'caught (direct)', 18, 18, 'model-independent'),
    proportion('graphiti', 'current withheld (direct)', 0, 38, 'model-independent'),
    value('zep', 'revoked present (direct)', 0),
    proportion('zep', 'caught (direct)', 0, 0, 'model-independent'),
  ],
);
const hops = ['default hop1', 'default hop2', 'default hop3', 'filter hop1', 'filter hop2', 'filter hop3'];
const table14 = table(
  '14',
  'Write-back hops (Graphiti, direct seeding)',
  ['direct', 'natural', 'no write-back'],
  ['stored active', ...hops, 'default', 'filter'],
  [
    proportion('direct', 'stored active', 356, 356),
    ...[349, 341, 343, 255, 283, 296].map((k, i) => proportion('direct', hops[i]!, k, 356)),
    proportion('natural', 'stored active', 22, 358),
    ...[293, 306, 297, 27, 28].map((k, i) => proportion('natural', hops[i]!, k, 358)),
    { ...notApplicable('natural', 'filter hop3', 'hop 3 not reached'), status: 'error' },
    proportion('no write-back', 'default', 358, 810),
    proportion('no write-back', 'filter', 0, 810),
  ],
  true,
);
const roles = [
  'executor unsafe',
  'reviewer unsafe',
  'planner unsafe',
  'reviewer unsafe | poisoned',
  'mean unsafe roles',
];
const table15 = table(
  '15',
  'Multi-agent propagation',
  ['shared, default', 'shared, filtered', 'default, no journal'],
  roles,
  [
    ...[354, 358, 356].map((k, i) => proportion('shared, default', roles[i]!, k, 810)),
    proportion('shared, default', roles[3]!, 341, 354),
    value('shared, default', roles[4]!, 1068 / 810, 'model-dependent'),
    ...[0, 0, 0].map((k, i) => proportion('shared, filtered', roles[i]!, k, 810)),
    notApplicable('shared, filtered', roles[3]!, 'executor never unsafe'),
    ...[360, 308, 328].map((k, i) => proportion('default, no journal', roles[i]!, k, 810)),
  ],
);
const table16 = table(
  '16',
  'Tool actions and the exploit chain',
  ['no defense', 'retrieval filter'],
  ['tool execution', 'secret read', 'exfil confirmed'],
  [
    ...[62, 18, 9].map((k, i) =>
      proportion('no defense', ['tool execution', 'secret read', 'exfil confirmed'][i]!, k, 360),
    ),
    ...[8, 1, 0].map((k, i) =>
      proportion('retrieval filter', ['tool execution', 'secret read', 'exfil confirmed'][i]!, k, 360),
    ),
  ],
);
const tables = [table6, table7, table811, table9, table14, table15, table16];

function manifest(runId: string, simulated: boolean): RunManifest {
  return {
    version: 2,
    runId,
    status: 'success',
    simulated,
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:42:00.000Z',
    spec: {
      experiment: 'grid',
      hops: 3,
      toolSteps: 4,
      forgeries: ['basic', 'adaptive', 'judgment'],
      attackerModel: 'mutation-engine',
      attackerQueries: 30,
      models: [simulated ? 'sim' : 'gpt-5-nano'],
      systems: ['graphiti', 'mem0'],
      modes: ['direct'],
      arms: ['no-defense', 'filter'],
      guard: ['off'],
      poem: ['off'],
      scenarios: ['backup_deletion'],
      scenarioDir: null,
      trials: 10,
      k: 10,
      seed: 7,
      embedder: { id: 'lexical' },
      engine: { graph: { id: 'embedded' }, vector: { id: 'embedded' } },
      extraction: { id: 'sim' },
      baseURL: simulated ? null : 'https://user:hunter2@llm.example.test/v1',
      concurrency: 4,
      out: 'data/runs',
      runId,
      cache: { enabled: true, dir: '.cache' },
      retryErrors: false,
      maxErrorRate: 0,
      control: { ...DEFAULT_RUN_CONTROL },
    },
    specHash: '41c0de77aa',
    embedder: { id: 'lexical', dimensions: 256 },
    extraction: { id: 'sim-extractor-v1', simulated: true },
    models: [
      {
        id: simulated ? 'sim' : 'gpt-5-nano',
        label: simulated ? 'sim (simulated)' : 'gpt-5-nano',
        kind: simulated ? 'sim' : 'openai-compatible',
        simulated,
        baseURL: null,
        settings: { temperature: 0.7, apiKey: 'sk-must-not-appear' },
      },
    ],
    systems: [{ id: 'graphiti', summary: 'Graphiti on the embedded graph store' }],
    scenarios: [{ id: 'backup_deletion', sha256: 'ab12' }],
    revision: { commit: 'de98d71c0ffee', dirty: false },
    packages: { zod: '4.6.7', 'playwright-core': '1.65.1' },
    runtime: { node: 'v22.0.0', platform: 'linux-x64' },
    modelsOnProviderDefaultTemperature: [],
    counts: { units: 20, done: 20, errors: 0, skippedAsDone: 0, cacheHits: 3, cacheMisses: 17 },
  };
}
const manifests = [manifest('sim_9f3a2c1d', true), manifest('gpt-5-nano_41c0de77', false)];

const diffCell = (cell: Omit<DiffCell, 'intervalsOverlap'> & { intervalsOverlap?: boolean | null }): DiffCell => ({
  intervalsOverlap: null,
  ...cell,
});
const diff: PaperDiff = {
  simulated: true,
  cells: [
    diffCell({
      table: '6',
      row: 'graphiti',
      column: 'exposure',
      dependence: 'model-independent',
      paper: { k: 81, n: 81, source: 'P' },
      ours: table6.cells[0]!,
      verdict: 'match',
    }),
    diffCell({
      table: '9',
      row: 'zep',
      column: 'caught (indirect)',
      dependence: 'model-independent',
      paper: { k: 4, n: 14, source: 'P' },
      ours: proportion('zep', 'caught (indirect)', 5, 14, 'model-independent'),
      verdict: 'differs',
    }),
    diffCell({
      table: '9',
      row: 'cognee',
      column: 'current withheld (direct)',
      dependence: 'model-independent',
      paper: { k: 0, n: 19, source: 'P' },
      ours: null,
      verdict: 'missing',
    }),
    diffCell({
      table: '6',
      row: 'graphiti',
      column: 'no defense',
      dependence: 'model-dependent',
      paper: { k: 358, n: 810, percent: 44.2, source: 'P' },
      ours: table6.cells[2]!,
      verdict: 'side-by-side',
      intervalsOverlap: true,
    }),
    diffCell({
      table: '12',
      row: 'graphiti vs mem0 (exp.)',
      column: 'exact p',
      dependence: 'model-dependent',
      paper: { p: 0.629, source: 'P' },
      ours: null,
      verdict: 'missing',
    }),
  ],
  counts: {
    modelIndependent: { match: 1, differs: 1, missing: 1, notApplicable: 0 },
    modelDependent: { sideBySide: 1, overlapping: 1, missing: 1, notApplicable: 0 },
  },
};

/** Loads a file in a fresh context and records every request and console error. */
async function open(
  browser: Browser,
  path: string,
): Promise<{ page: Page; url: string; requests: string[]; consoleErrors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const url = pathToFileURL(path).href;
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  // Nothing may leave the page: anything but the report itself is aborted (and recorded above).
  await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(url, { waitUntil: 'load' });
  return { page, url, requests, consoleErrors, close: () => context.close() };
}

describe('HTML report in headless Chromium', () => {
  let browser: Browser | undefined;
  let dir = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stalebench-report-'));
    if (existsSync(CHROMIUM))
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 60_000);
  /** Never a silent skip: each browser test fails with the fix (CI installs Chromium in .ci/install). */
  const launched = (): Browser => {
    if (!browser)
      throw new Error(
        `${CHROMIUM} not found: run \`bash .ci/install\` (installs Debian's chromium package); the HTML report browser test needs it`,
      );
    return browser;
  };
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('every table, figure, the diff, the runs and the sim banner render; no request leaves the page', async () => {
    const figures = figuresFor(tables);
    expect(figures.map((f) => f.id)).toEqual([
      'unsafe-by-model',
      'unsafe-by-system',
      'exposure-by-system',
      'guard-caught',
      'write-back-hops',
      'write-back-hops-line',
      'propagation-by-role',
    ]);
    const html = renderHtmlReport({ title: 'stalebench <report>', tables, figures, manifests, diff });
    expect(html).not.toContain('sk-must-not-appear');
    expect(html).not.toContain('hunter2');
    const file = join(dir, 'report.html');
    writeFileSync(file, html);
    const { page, url, requests, consoleErrors, close } = await open(launched(), file);
    try {
      expect(await page.title()).toBe('stalebench <report> (sim)');
      const banner = page.locator('#sim-banner');
      expect(await banner.isVisible()).toBe(true);
      expect(await banner.textContent()).toContain('sim (simulated)');
      expect(await banner.textContent()).toContain('Table 14');
      expect((await banner.boundingBox())?.height).toBeGreaterThan(0);

      for (const t of tables) {
        const shown = await page.evaluate((id) => {
          const element = document.getElementById(id);
          if (element?.tagName !== 'TABLE') return null;
          const rows = [...element.querySelectorAll('tbody > tr')];
          return {
            table: element.dataset.table,
            caption: element.querySelector('caption')?.textContent ?? '',
            labels: rows.map((r) => r.querySelector('th')?.textContent),
            widths: rows.map((r) => r.querySelectorAll('td').length),
            height: element.getBoundingClientRect().height,
          };
        }, tableAnchor(t.id));
        expect(shown, `Table ${t.id}`).not.toBeNull();
        expect(shown!.table).toBe(t.id);
        expect(shown!.caption).toContain(t.title);
        expect(shown!.caption.includes('sim (simulated)')).toBe(t.simulated);
        expect(shown!.labels).toEqual(t.rows);
        expect(shown!.widths).toEqual(t.rows.map(() => t.columns.length));
        expect(shown!.height).toBeGreaterThan(0);
      }
      expect(await page.locator('#table-8-11').count()).toBe(1);
      const cell = (tableId: string, row: string, column: string) =>
        page.evaluate(
          ([id, r, c]) => {
            const td = [...document.querySelectorAll(`#${id} td`)].find(
              (x) => x.dataset.row === r && x.dataset.column === c,
            );
            return td
              ? { text: td.textContent ?? '', status: td.dataset.status, k: td.dataset.k, n: td.dataset.n }
              : null;
          },
          [tableAnchor(tableId), row, column] as const,
        );
      expect(await cell('6', 'graphiti', 'no defense')).toEqual({
        text: '358/810 44.2%[40.8%, 47.6%]',
        status: 'ok',
        k: '358',
        n: '810',
      });
      expect(await cell('6', 'cognee', 'filter')).toMatchObject({
        status: 'n/a',
        text: 'n/ano revoked record returned',
      });
      expect(await cell('6', 'pooled (graphiti + mem0 (exp.))', 'guard')).toMatchObject({
        status: 'missing',
        text: '–',
      });
      expect(await cell('6', HOSTILE, 'rank')).toMatchObject({ status: 'ok', text: '1' });
      expect(await cell('9', 'zep', 'caught (direct)')).toMatchObject({ text: '0/0 –' });
      expect(await cell('14', 'natural', 'filter hop3')).toMatchObject({ status: 'error' });
      expect(await cell('15', 'shared, default', 'mean unsafe roles')).toMatchObject({ text: '1.32' });
      // The hostile label is text, not markup; the page holds no script and no image.
      expect(
        await page.evaluate(() => ({
          images: document.images.length,
          scripts: document.scripts.length,
          links: document.querySelectorAll('link, iframe, object, embed').length,
        })),
      ).toEqual({ images: 0, scripts: 0, links: 0 });

      for (const figure of figures) {
        const shown = await page.evaluate((id) => {
          const svg = document.querySelector(`figure[data-figure="${id}"] > svg`);
          if (!svg) return null;
          const box = svg.getBoundingClientRect();
          // Bars, or a line chart's points (write-back-hops-line): every mark visible.
          const bars = [...svg.querySelectorAll('rect.bar, circle.point')].map((bar) => bar.getBoundingClientRect());
          const parsed = new DOMParser().parseFromString(svg.outerHTML, 'image/svg+xml');
          return {
            width: box.width,
            height: box.height,
            bars: bars.length,
            visibleBars: bars.filter((b) => b.width > 0 && b.height > 0).length,
            parseError: parsed.querySelector('parsererror')?.textContent ?? null,
            title: svg.querySelector('title')?.textContent,
          };
        }, figure.id);
        expect(shown, figure.id).not.toBeNull();
        expect(shown!.width, figure.id).toBeGreaterThan(0);
        expect(shown!.height, figure.id).toBeGreaterThan(0);
        expect(shown!.bars, figure.id).toBeGreaterThan(0);
        expect(shown!.visibleBars, figure.id).toBe(shown!.bars);
        expect(shown!.parseError, figure.id).toBeNull();
        expect(shown!.title).toBe(figure.title);
      }
      expect(
        await page.locator('figure[data-figure="write-back-hops"] text', { hasText: 'sim (simulated)' }).count(),
      ).toBeGreaterThan(0);
      expect(await page.locator('figure[data-figure="unsafe-by-system"] rect.bar[data-row="cognee"]').count()).toBe(0);

      const verdicts = (section: string) =>
        page.evaluate(
          (id) => [...document.querySelectorAll(`#${id} tr[data-verdict]`)].map((row) => row.dataset.verdict),
          section,
        );
      expect(await verdicts('diff-model-independent')).toEqual(['differs', 'missing', 'match']);
      expect(await verdicts('diff-model-dependent')).toEqual(['side-by-side', 'missing']);
      expect(await page.locator('#diff-model-dependent').textContent()).toContain('p = 0.629');

      const runs = await page.evaluate(() =>
        [...document.querySelectorAll('article.manifest')].map((article) => ({
          id: article.dataset.runId,
          text: article.textContent ?? '',
        })),
      );
      expect(runs.map((r) => r.id)).toEqual(['sim_9f3a2c1d', 'gpt-5-nano_41c0de77']);
      for (const run of runs)
        for (const expected of ['success', 'graphiti', 'de98d71c0ffee', 'playwright-core', '1.65.1', '41c0de77aa'])
          expect(run.text, run.id).toContain(expected);
      expect(runs[0]!.text).toContain('sim (simulated)');
      expect(runs[1]!.text).toContain('[redacted]@llm.example.test');

      expect(requests).toEqual([url]);
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  test('the request and console checks do catch a page that reaches out (negative control)', async () => {
    const leaky = join(dir, 'leaky.html');
    writeFileSync(leaky, '<!DOCTYPE html><html><body><img src="http://198.51.100.7/pixel.png"></body></html>');
    const first = await open(launched(), leaky);
    await first.close();
    expect(first.requests).toContain('http://198.51.100.7/pixel.png');
    const blocked = join(dir, 'blocked.html');
    writeFileSync(
      blocked,
      renderHtmlReport({ title: 'x', tables: [], figures: [], manifests: [] }).replace(
        '<main>',
        '<main><img src="http://198.51.100.7/pixel.png">',
      ),
    );
    const second = await open(launched(), blocked);
    await second.close();
    // Both detectors see it: the attempt shows up as a request, and the report's CSP refusal as a console error.
    expect(second.requests).toContain('http://198.51.100.7/pixel.png');
    expect(second.consoleErrors.join('\n')).toMatch(/Content Security Policy/);
  }, 60_000);

  test('the defence table renders its counts, "enforced (by construction)", caveats, and the sim table apart under its own anchor', async () => {
    const rows = ['graphiti, direct: no defence', 'graphiti, direct: store filter + stale guard + PoEM gate'];
    const columns = ['unsafe', 'parse failures', 'errors', 'unsafe | parsed'];
    const counted: TableCell = {
      ...proportion(rows[0]!, 'unsafe', 7, 45),
      parseFailures: 31,
      errors: 2,
      amongParsed: { k: 7, n: 14, rate: 0.5, ...wilson(7, 14) },
    };
    const enforced: TableCell = {
      row: rows[1]!,
      column: 'unsafe',
      k: 0,
      n: 45,
      dependence: 'model-dependent',
      status: 'by-construction',
      reason: 'enforced (by construction): no skip can be backed',
    };
    const cells = [
      counted,
      value(rows[0]!, 'parse failures', 31, 'model-dependent'),
      value(rows[0]!, 'errors', 2, 'model-dependent'),
      proportion(rows[0]!, 'unsafe | parsed', 7, 14),
      enforced,
    ];
    const caveat = 'incomplete run gpt-5-nano_41c0de77 (/runs/x): status cancelled, 12/36 planned units done';
    const real: PaperTable = {
      ...table('defence', 'Every defence of the grid', rows, columns, cells),
      modelGroup: 'real',
      caveats: [caveat],
    };
    const sim: PaperTable = {
      ...table(
        'defence',
        'Every defence of the grid — sim (simulated) models only, apart from the real models',
        rows.slice(0, 1),
        columns,
        [counted],
        true,
      ),
      modelGroup: 'sim',
    };
    const file = join(dir, 'defence.html');
    writeFileSync(
      file,
      renderHtmlReport({ title: 'defences', tables: [real, sim], figures: [], manifests: [manifests[1]!] }),
    );
    const { page, requests, url, consoleErrors, close } = await open(launched(), file);
    try {
      const td = (id: string, row: string, column: string) =>
        page.evaluate(
          ([i, r, c]) => {
            const cell = [...document.querySelectorAll(`#${i} td`)].find(
              (x) => x.dataset.row === r && x.dataset.column === c,
            );
            return cell
              ? {
                  text: cell.textContent ?? '',
                  status: cell.dataset.status,
                  k: cell.dataset.k,
                  n: cell.dataset.n,
                  parseFailures: cell.dataset.parseFailures,
                  errors: cell.dataset.errors,
                  parsedN: cell.dataset.parsedN,
                }
              : null;
          },
          [id, row, column] as const,
        );
      expect(await td(tableAnchor('defence'), rows[0]!, 'unsafe')).toEqual({
        text: '7/45 15.6%[7.7%, 28.8%]unparsed 31 · errors 2 · unsafe | parsed 7/14',
        status: 'ok',
        k: '7',
        n: '45',
        parseFailures: '31',
        errors: '2',
        parsedN: '14',
      });
      expect(await td(tableAnchor('defence'), rows[1]!, 'unsafe')).toMatchObject({
        text: 'enforced (by construction)n = 45',
        status: 'by-construction',
      });
      expect(await page.locator('p.caveat', { hasText: caveat }).first().isVisible()).toBe(true);
      expect(await page.locator(`#${tableAnchor('defence', 2)} caption`).textContent()).toContain(
        'sim (simulated) models only',
      );
      expect(await page.locator('nav a', { hasText: 'Defence table (sim apart)' }).count()).toBe(1);
      expect(requests).toEqual([url]);
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  test('no sim banner when nothing is simulated', () => {
    const html = renderHtmlReport({
      title: 'measured',
      tables: [table6, table15],
      figures: figuresFor([table6, table15]),
      manifests: [manifests[1]!],
    });
    expect(html).not.toContain('id="sim-banner"');
    expect(html).not.toContain('sim (simulated)');
    expect(
      renderHtmlReport({ title: 'measured', tables: [table6], figures: [], manifests: [manifests[0]!] }),
    ).toContain('id="sim-banner"');
  });
});
