// pnpm run view without a browser: --static writes a page per unit with its exact messages, the server stays inside the run
// directories, a run that does not verify opens with its first bad line, an unreadable directory is listed.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesOf } from '../../pipeline/index.js';
import type { UnitRecord } from '../../pipeline/run-log/run-log.js';
import { runEvalCli } from '../../pipeline/test-support/eval-cli.js';
import { frontdoorMain } from '../../pipeline/suites/frontdoor/harness/frontdoor-command.js';
import { main as integrityMain } from '../../pipeline/suites/integrity/harness/integrity-command.js';
import type { FrontdoorRecord } from '../../pipeline/suites/frontdoor/suite.js';
import type { IntegrityRecord } from '../../pipeline/suites/integrity/suite.js';
import { loadScenarios } from '../../scenarios/index.js';
import { wilson } from '../statistics.js';
import { escapeHtml } from './pages.js';
import { PAGE_WILSON_SOURCE } from './page-script.js';
import { main as compareMain } from '../compare-command.js';
import type { RunComparison } from '../compare-command.js';
import { BY_CONSTRUCTION_TEXT } from '../forged-reasoning/poem-enforcement.js';
import { proportionText } from '../unsafe-counts.js';
import { main } from './view-command.js';
import { startViewServer, type ViewServer } from './view-server.js';
import { createViewSite } from './view-site.js';

const scenarios = new Map((await loadScenarios()).map((s) => [s.id, s]));
let root: string;
let runDir: string;
let records: UnitRecord[];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'stalebench-view-'));
  const { code } = await runEvalCli(
    [
      '--model',
      'sim',
      '--systems',
      'graphiti,mem0-exp',
      '--arms',
      'none,store-filter,guard',
      '--guard',
      'off,on',
      '--trials',
      '1',
      '--out',
      join(root, 'runs'),
    ],
    {},
  );
  expect(code).toBe(0);
  runDir = join(root, 'runs', readdirSync(join(root, 'runs'))[0]!);
  records = readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);
}, 120_000);

/** GET `path` as sent, byte for byte (no client-side normalisation of `..`). */
function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('pnpm run view --static', () => {
  it('writes index.html and one page per unit holding its exact messages, the revoked record, reply and action', async () => {
    const out = join(root, 'static');
    const lines: string[] = [];
    expect(
      await main(
        [runDir, '--static', out],
        (line) => lines.push(line),
        (line) => lines.push(line),
      ),
    ).toBe(0);
    expect(existsSync(join(out, 'index.html'))).toBe(true);
    const [slug] = readdirSync(join(out, 'runs'));
    const units = readdirSync(join(out, 'runs', slug!, 'units'));
    expect(units).toHaveLength(records.length);
    const exposed = records.findIndex((r) => r.context.exposed && r.key.arm === 'none');
    expect(exposed).toBeGreaterThanOrEqual(0);
    const record = records[exposed]!;
    const page = readFileSync(join(out, 'runs', slug!, 'units', `${exposed}.html`), 'utf8');
    const [system, user] = messagesOf(record, scenarios.get(record.key.scenario)!);
    expect(page).toContain(escapeHtml(system!.content));
    expect(page).toContain(escapeHtml(user!.content));
    expect(page).toContain('the ones sent');
    expect(page).toMatch(/REVOKED<\/span> revoked by field expired_at/);
    expect(page).toContain(escapeHtml(record.reply!.text));
    expect(page).toContain(`<dd id="parsed-action">${escapeHtml(record.parsedAction ?? '')}`);
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    expect(index).toContain('intact');
  }, 60_000);
});

describe('the page script', () => {
  it("computes Wilson intervals exactly as analysis/statistics.ts's wilson", () => {
    const pageWilson = new Function(`${PAGE_WILSON_SOURCE}; return wilson;`)() as typeof wilson;
    for (let n = 0; n <= 200; n += 1)
      for (let k = 0; k <= n; k += 1) expect(pageWilson(k, n), `${k}/${n}`).toEqual(wilson(k, n));
  });
});

describe('pnpm run view (server)', () => {
  let server: ViewServer;
  let brokenDir: string;
  beforeAll(async () => {
    // A copy of the run with one record edited after the run finished: the chain breaks at that line.
    brokenDir = join(root, 'broken');
    cpSync(runDir, brokenDir, { recursive: true });
    const path = join(brokenDir, 'records.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"status":"ok"', '"status":"ok" ');
    writeFileSync(path, lines.join('\n'));
    writeFileSync(join(root, 'secret.txt'), 'do not serve');
    server = await startViewServer(createViewSite([runDir, brokenDir, join(root, 'missing')]), 0);
  });
  afterAll(async () => server?.close());

  it('binds loopback and lists every directory, an unreadable one with its error', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const { status, body } = await rawGet(server.url, '/');
    expect(status).toBe(200);
    expect(body).toContain('intact');
    expect(body).toMatch(/missing: ENOENT/);
  });

  it('opens a run that does not verify with a warning naming its first bad line', async () => {
    const { body } = await rawGet(server.url, '/runs/2-broken/index.html');
    expect(body).toContain('id="verify-warning"');
    expect(body).toMatch(/records\.jsonl:3: edited/);
    const unit = await rawGet(server.url, '/runs/2-broken/units/0.html');
    expect(unit.body).toContain('id="verify-warning"');
  });

  it('serves nothing outside the given run directories', async () => {
    for (const path of [
      '/../secret.txt',
      '/runs/../../secret.txt',
      '/runs/1-x/../../secret.txt',
      '/runs/%2e%2e/%2e%2e/secret.txt',
      '/runs/1-' + '..%2fsecret.txt',
      `/runs/${encodeURIComponent(root)}/secret.txt`,
      '/runs/1-runs/records.jsonl',
      '/runs/1-runs/../../../../etc/passwd',
      '/etc/passwd',
      '/runs/1-runs/units/999999.html',
    ]) {
      const { status, body } = await rawGet(server.url, path);
      expect(status, path).toBe(404);
      expect(body, path).not.toContain('do not serve');
      expect(body, path).not.toContain('root:');
    }
    // The run's own files are served only as pages, never raw.
    const [slug] = [...(await rawGet(server.url, '/')).body.matchAll(/href="runs\/([^/]+)\//g)].map((m) => m[1]);
    expect((await rawGet(server.url, `/runs/${slug}/manifest.json`)).status).toBe(404);
    expect((await rawGet(server.url, `/runs/${slug}/index.html`)).status).toBe(200);
  });
});

describe('pnpm run view on a follow-up run', () => {
  it('lists it and serves its units by cell and outcome, each as its stored line', async () => {
    const out = join(root, 'writeback');
    const { code } = await runEvalCli(
      ['--model', 'sim', '--experiment', 'writeback', '--systems', 'graphiti', '--trials', '1', '--out', out],
      {},
    );
    expect(code).toBe(0);
    const site = createViewSite([join(out, readdirSync(out)[0]!)]);
    expect(site.entries[0]).toMatchObject({ experiment: 'writeback', status: 'success', verify: 'intact' });
    const units = await site.get(`/runs/${site.entries[0]!.slug}/units.js`);
    const data = JSON.parse(units.body.replace(/^window\.VIEW_RUN = /, '').replace(/;\n$/, '')) as {
      kind: string;
      ids: string[];
    };
    expect(data.kind).toBe('generic');
    expect(data.ids.length).toBeGreaterThan(0);
    const unit = await site.get(`/runs/${site.entries[0]!.slug}/units/0.html`);
    expect(unit.status).toBe(200);
    expect(unit.body).toContain(escapeHtml(data.ids[0]!));
  }, 60_000);
});

describe('pnpm run view: two runs side by side', () => {
  let otherDir: string;
  let comparison: RunComparison;
  beforeAll(async () => {
    const out = join(root, 'other');
    const args = ['--model', 'sim', '--systems', 'graphiti,mem0-exp', '--arms', 'none,store-filter,guard'];
    const { code } = await runEvalCli([...args, '--guard', 'off,on', '--trials', '2', '--seed', '7', '--out', out], {});
    expect(code).toBe(0);
    otherDir = join(out, readdirSync(out)[0]!);
    const lines: string[] = [];
    expect(
      await compareMain(
        [runDir, otherDir, '--json'],
        (l) => lines.push(l),
        (l) => lines.push(l),
      ),
    ).toBe(0);
    comparison = JSON.parse(lines.join('\n')) as RunComparison;
    expect(comparison.matched.length).toBeGreaterThan(0);
  }, 120_000);

  /** The rows of a compare page by cell key, each cell's text by class. */
  function rowsOf(page: string): Map<string, Record<string, string>> {
    const rows = new Map<string, Record<string, string>>();
    for (const [, key, body] of page.matchAll(/<tr class="compare-row" data-cell="([^"]+)">(.*?)<\/tr>/g)) {
      const cells: Record<string, string> = {};
      for (const [, cls, text] of body!.matchAll(/<td class="([a-z-]+)[^"]*">(.*?)<\/td>/g)) cells[cls!] = text!;
      rows.set(key!, cells);
    }
    return rows;
  }

  function expectSameNumbers(page: string) {
    const rows = rowsOf(page);
    expect(rows.size).toBe(comparison.matched.length);
    for (const c of comparison.matched) {
      const key = escapeHtml(JSON.stringify([c.model, c.system, c.mode, c.arm, c.guard, c.poem]));
      const row = rows.get(key);
      expect(row, key).toBeDefined();
      const side = (p: typeof c.unsafe.a, enforced: boolean) => (enforced ? BY_CONSTRUCTION_TEXT : proportionText(p));
      expect(row!['unsafe-a'], key).toBe(escapeHtml(side(c.unsafe.a, c.byConstruction.a)));
      expect(row!['unsafe-b'], key).toBe(escapeHtml(side(c.unsafe.b, c.byConstruction.b)));
      const delta =
        c.unsafe.delta === null
          ? '–'
          : `${c.unsafe.delta >= 0 ? '+' : '-'}${Math.abs(c.unsafe.delta * 100).toFixed(1)} pp`;
      expect(row!.delta, key).toBe(c.simVersusReal ? 'sim vs real' : delta);
      expect(row!.exposure, key).toContain(`${c.exposure.a.k}/${c.exposure.a.n} → ${c.exposure.b.k}/${c.exposure.b.n}`);
      // Links to the cell's units and a transcript in both runs.
      expect(row!['links-a'], key).toMatch(/href="runs\/1-[^"]+\/units\/\d+\.html"/);
      expect(row!['links-b'], key).toMatch(/href="runs\/2-[^"]+\/units\/\d+\.html"/);
      expect(row!['links-a'], key).toContain(
        escapeHtml(`#model=${encodeURIComponent(c.model)}&system=${c.system}&mode=${c.mode}&arm=`),
      );
    }
  }

  it('serves /compare?a=&b= with the numbers pnpm compare --json computes, cell by cell, linked from the run list', async () => {
    const site = createViewSite([runDir, otherDir]);
    const list = await site.get('/');
    expect(list.body).toContain('id="compare-form"');
    expect(list.body).toContain('action="compare"');
    const [a, b] = site.entries.map((e) => e.slug);
    const page = await site.get(`/compare?a=${a}&b=${b}`);
    expect(page.status).toBe(200);
    expectSameNumbers(page.body);
    // Each transcript link opens a unit of that cell.
    const first = comparison.matched[0]!;
    const href =
      /class="links-b"><a [^>]*>units<\/a> · <a class="transcript" href="runs\/([^/]+)\/units\/(\d+)\.html"/.exec(
        [...page.body.matchAll(/<tr class="compare-row"[^>]*>.*?<\/tr>/g)][0]![0],
      )!;
    const unit = await site.get(`/runs/${href[1]}/units/${href[2]}.html`);
    for (const field of ['system', 'mode', 'arm'] as const)
      expect(unit.body).toContain(escapeHtml(`"${field}":"${first[field]}"`));
    expect((await site.get(`/compare?a=${a}&b=9-nope`)).status).toBe(404);
  }, 60_000);

  it('--static with two runs writes compare.html, linked from index.html', async () => {
    const out = join(root, 'static-compare');
    expect(
      await main(
        [runDir, otherDir, '--static', out],
        () => {},
        () => {},
      ),
    ).toBe(0);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('href="compare.html"');
    const page = readFileSync(join(out, 'compare.html'), 'utf8');
    expectSameNumbers(page);
    for (const [, href] of page.matchAll(/class="transcript" href="([^"]+)"/g))
      expect(existsSync(join(out, href!)), href).toBe(true);
  }, 120_000);
});

describe('pnpm run view: transcripts of follow-ups and suites', () => {
  /** Each unit's page and its stored line (the last line of its id), through the site. */
  async function unitsOf(dir: string) {
    const site = createViewSite([dir]);
    const slug = site.entries[0]!.slug;
    const units = await site.get(`/runs/${slug}/units.js`);
    const { ids } = JSON.parse(units.body.replace(/^window\.VIEW_RUN = /, '').replace(/;\n$/, '')) as { ids: string[] };
    const file = ['records.jsonl', `${site.entries[0]!.experiment}.jsonl`].map((f) => join(dir, f)).find(existsSync)!;
    const byId = new Map<string, Record<string, unknown>>();
    for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      const row = JSON.parse(line) as Record<string, unknown>;
      byId.set(String(row.unit ?? row.unitId), row);
    }
    return Promise.all(
      ids.map(async (id, n) => ({ row: byId.get(id)!, page: (await site.get(`/runs/${slug}/units/${n}.html`)).body })),
    );
  }
  const followUpRun = async (experiment: string, extra: string[] = []) => {
    const out = join(root, experiment);
    const args = ['--model', 'sim', '--experiment', experiment, '--systems', 'graphiti', '--trials', '1', ...extra];
    const { code } = await runEvalCli([...args, '--out', out], {});
    expect(code).toBe(0);
    return join(out, readdirSync(out)[0]!);
  };
  type Trace = { messages: { content: string }[]; reply: { text: string } | null; parsedAction: string | null };
  const expectDecision = (page: string, id: string, trace: Trace) => {
    const section = new RegExp(`<section class="step" id="${id}">(.*?)</section>`, 's').exec(page)?.[1];
    expect(section, id).toBeDefined();
    for (const m of trace.messages) expect(section, id).toContain(escapeHtml(m.content));
    if (trace.reply) expect(section, id).toContain(escapeHtml(trace.reply.text));
    expect(section, id).toContain(escapeHtml(trace.parsedAction ?? '(none: parse failure)'));
    expect(section, id).toContain('class="read-table"');
  };

  it('write-back: every hop, default and filtered, with its read, messages, reply and parse', async () => {
    const units = await unitsOf(await followUpRun('writeback'));
    const withHops = units.filter(({ row }) => (row.hops as unknown[]).length > 0);
    expect(withHops.length).toBeGreaterThan(0);
    for (const { row, page } of units) {
      const record = row as unknown as { hop0: Trace | null; hops: { hop: number; default: Trace; filtered: Trace }[] };
      if (record.hop0) expectDecision(page, 'hop-0-default', record.hop0);
      for (const hop of record.hops) {
        expect(page).toContain(`<section class="hop" id="hop-${hop.hop}">`);
        expectDecision(page, `hop-${hop.hop}-default`, hop.default);
        expectDecision(page, `hop-${hop.hop}-filtered`, hop.filtered);
      }
    }
  }, 120_000);

  it('propagation: every role; tools: every agent step', async () => {
    for (const { row, page } of await unitsOf(await followUpRun('propagation'))) {
      const roles = row.roles as Record<string, Trace>;
      expect(Object.keys(roles).length).toBeGreaterThan(0);
      for (const [role, trace] of Object.entries(roles)) expectDecision(page, `role-${role}-decision`, trace);
    }
    const tools = await unitsOf(await followUpRun('tools'));
    expect(tools.some(({ row }) => (row.agent as { steps: unknown[] } | null)?.steps.length)).toBe(true);
    for (const { row, page } of tools) {
      const agent = row.agent as { steps: { reply: string; messages: { content: string }[] }[] } | null;
      if (!agent) continue;
      expect(page.match(/<section class="agent-step">/g)?.length ?? 0).toBeGreaterThanOrEqual(agent.steps.length);
      for (const step of agent.steps) {
        expect(page).toContain(escapeHtml(step.reply));
        for (const m of step.messages) expect(page).toContain(escapeHtml(m.content));
      }
    }
  }, 120_000);

  it('integrity: the verdict, controls C1–C3 and the exact edit commands', async () => {
    const dir = join(root, 'integrity');
    const code = await integrityMain(
      ['--target', 'reference', '--edits', 'T1,T6', '-o', dir],
      { write: () => {} },
      { write: () => {} },
      {},
      {},
    );
    expect(code).toBe(0);
    const units = await unitsOf(dir);
    expect(units).toHaveLength(2);
    for (const { row, page } of units) {
      const { cell } = row.record as IntegrityRecord;
      expect(page).toContain(`<dd>${escapeHtml(cell.verdict)}</dd>`);
      const controls = /<table id="controls">(.*?)<\/table>/s.exec(page)![1]!;
      for (const c of ['c1', 'c2', 'c3'] as const) {
        expect(controls).toContain(`<td>${c.toUpperCase()}</td>`);
        expect(controls).toContain(escapeHtml(cell.controls[c].detail));
      }
      expect(cell.commands.length).toBeGreaterThan(0);
      const commands = /<ol id="commands">(.*?)<\/ol>/s.exec(page)![1]!;
      for (const command of cell.commands) expect(commands).toContain(escapeHtml(command));
    }
  }, 120_000);

  it('front door: the fixtures, channels and variants of each cell', async () => {
    const dir = join(root, 'frontdoor');
    const code = await frontdoorMain(['--target', 'reference', '-o', dir], {}, { out: () => {}, err: () => {} }, {});
    expect(code).toBe(0);
    const units = await unitsOf(dir);
    expect(units.length).toBeGreaterThan(0);
    for (const { row, page } of units) {
      const { cell } = row.record as FrontdoorRecord;
      expect(page).toContain(`<p id="fixtures">${cell.fixtures.fell} of ${cell.fixtures.total} fixture(s) fell`);
      const channels = /<table id="channels">(.*?)<\/table>/s.exec(page)![1]!;
      for (const [channel, verdict] of Object.entries(cell.channels))
        expect(channels).toContain(`<td>${escapeHtml(channel)}</td><td>${escapeHtml(verdict)}</td>`);
      const variants = /<ul id="variants">(.*?)<\/ul>/s.exec(page)![1]!;
      expect(variants.match(/<li>/g)).toHaveLength(cell.variants.length);
      expect(page).toContain(escapeHtml(cell.detail));
    }
  }, 120_000);
});
