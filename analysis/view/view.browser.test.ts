// pnpm run view in headless Debian Chromium: open a run, filter to one cell, open a transcript; the revoked record is marked
// and the messages are the ones the endpoint received. Screenshots go to the test's temp dir (printed).
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { UnitRecord } from '../../pipeline/run-log/run-log.js';
import { runEvalCli } from '../../pipeline/test-support/eval-cli.js';
import { startOpenAICompatibleServer, type TestServer } from '../../pipeline/test-support/openai-compatible-server.js';
import { loadScenarios } from '../../scenarios/index.js';
import type { Summary } from '../grid/summarize.js';
import { startViewServer, type ViewServer } from './view-server.js';
import { createViewSite } from './view-site.js';

const CHROMIUM = '/usr/bin/chromium';
const scenarios = await loadScenarios();
const SCENARIOS = ['mfa_waiver_access', 'data_exfiltration_pii_export'];

describe('pnpm run view in headless Chromium', () => {
  let endpoint: TestServer;
  let viewer: ViewServer;
  let browser: Browser | undefined;
  let dir = '';
  let runDir = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stalebench-view-browser-'));
    // Unsafe while the revoked text is in the context, safe once a defence removed it.
    endpoint = await startOpenAICompatibleServer((request) => {
      const user = request.body.messages![1]!.content;
      const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`))!;
      const action = user.includes(scenario.v1) ? scenario.actions[0] : scenario.actions[1];
      return { content: `{"action": "${action}", "reason": "per the retrieved facts"}` };
    });
    const { code } = await runEvalCli(
      [
        '--model',
        'local-model',
        '--yes',
        '--systems',
        'graphiti,mem0-exp',
        '--modes',
        'direct',
        '--arms',
        'none,guard',
        '--scenarios',
        SCENARIOS.join(','),
        '--trials',
        '2',
        '--concurrency',
        '1',
        '--no-cache',
        '--out',
        join(dir, 'runs'),
      ],
      { OPENAI_BASE_URL: endpoint.baseURL, OPENAI_API_KEY: 'sk-test-view' },
    );
    expect(code).toBe(0);
    runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
    viewer = await startViewServer(createViewSite([runDir]), 0);
    if (existsSync(CHROMIUM))
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
    await endpoint?.close();
  });
  /** Never a silent skip: the test fails with the fix (CI installs Chromium in .ci/install). */
  const launched = (): Browser => {
    if (!browser)
      throw new Error(
        `${CHROMIUM} not found: run \`bash .ci/install\` (installs Debian's chromium package); the pnpm run view browser test needs it`,
      );
    return browser;
  };

  test('run list → one cell → a transcript: the revoked record marked, the messages the endpoint received', async () => {
    const context = await launched().newContext({ viewport: { width: 1400, height: 1000 } });
    const outside: string[] = [];
    // Nothing may leave the viewer: any other request is aborted and recorded.
    await context.route('**/*', (route) => {
      if (route.request().url().startsWith(viewer.url)) return route.continue();
      outside.push(route.request().url());
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const shots = join(dir, 'screenshots');

    await page.goto(viewer.url);
    await expect.poll(() => page.locator('#run-table .run-row').count()).toBe(1);
    expect(await page.locator('#run-table .run-row').textContent()).toContain('intact');
    await page.screenshot({ path: join(shots, 'run-list.png'), fullPage: true });

    await page.locator('#run-table .run-row a').click();
    await page.waitForSelector('#cell-table');
    expect(await page.locator('#cell-table .cell-row').count()).toBe(4);
    await page.selectOption('#filter-system', 'graphiti');
    await page.selectOption('#filter-arm', 'none');
    expect(await page.locator('#cell-table .cell-row').count()).toBe(1);
    // The page's cell is summary.json's: same k/n and Wilson interval.
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const cell = summary.cells.find((c) => c.system === 'graphiti' && c.arm === 'none' && c.guard === 'off')!;
    const shown = await page.locator('#cell-table .cell-row').textContent();
    expect(shown).toContain(`${cell.unsafe.k}/${cell.unsafe.n}`);
    expect(shown).toContain(`[${(100 * cell.unsafe.low).toFixed(1)}%, ${(100 * cell.unsafe.high).toFixed(1)}%]`);
    await page.locator('#cell-table .open-cell').click();
    expect(await page.locator('#unit-table .unit-row').count()).toBe(cell.unsafe.n + cell.errors);
    await page.selectOption('#filter-outcome', 'unsafe');
    expect(await page.locator('#unit-table .unit-row').count()).toBe(cell.unsafe.k);
    expect(cell.unsafe.k).toBeGreaterThan(0);
    await page.screenshot({ path: join(shots, 'cell.png'), fullPage: true });

    await page.locator('#unit-table .unit-link').first().click();
    await page.waitForSelector('#messages');
    const unitId = await page.locator('h1').textContent();
    const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UnitRecord);
    const at = records.findIndex((r) => r.unitId === unitId);
    expect(at).toBeGreaterThanOrEqual(0);
    // Concurrency 1: request i is record i's call. The page shows exactly the messages that request carried.
    const sent = endpoint.requests[at]!.body.messages!;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    expect(await page.locator('#message-0').textContent()).toBe(sent[0]!.content);
    expect(await page.locator('#message-1').textContent()).toBe(sent[1]!.content);
    const revoked = page.locator('#read-table .read-row.revoked');
    expect(await revoked.count()).toBeGreaterThan(0);
    const revokedText = await revoked.first().textContent();
    expect(revokedText).toContain('REVOKED');
    expect(revokedText).toContain('revoked by field expired_at');
    expect(sent[1]!.content).toContain(
      records[at]!.context.records.find((_, i) => records[at]!.context.labels[i])!.text,
    );
    expect(await page.locator('#outcome').textContent()).toBe('unsafe');
    expect(await page.locator('#parsed-action').textContent()).toBe(records[at]!.parsedAction!);
    expect(await page.locator('#parser-reason').textContent()).toContain('the JSON "action" field is exactly');
    await page.screenshot({ path: join(shots, 'transcript.png'), fullPage: true });

    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
    console.info(
      `pnpm run view screenshots: ${join(shots, 'run-list.png')}, ${join(shots, 'cell.png')}, ${join(shots, 'transcript.png')}`,
    );
  }, 60_000);
});
