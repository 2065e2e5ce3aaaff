// The viewer's pages by URL path, over the run directories given and nothing else: the server answers from it, and
// `--static` writes every page of it.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadPrices, probeIdOf, type PriceTable, type UnitRecord } from '../../pipeline/index.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { readRunHead, type RunHead } from '../load-run.js';
import { exposureRules, loadRunScenarios, type ExposureRuleOf } from '../rescore-inputs.js';
import { compareEntries, comparePage } from './compare-page.js';
import { hasFigures, runFiguresPage } from './figures-page.js';
import { escapeHtml, frame, runListPage, runPage } from './pages.js';
import { readRunEntry, type RunEntry } from './run-catalog.js';
import { genericUnitPage, gridTranscriptPage } from './transcript.js';
import { findRunKind } from '../run-kinds/index.js';
import { indexUnits, linesWithOffsets, readSpan, unitFileOf, type UnitIndex } from './unit-index.js';
import { makeDirectory } from '#core/make-directory.js';

/** One answer: a status, a content type and the body. */
export interface SiteResponse {
  status: number;
  type: string;
  body: string;
}

/** The viewer's pages over a fixed list of run directories. */
export interface ViewSite {
  entries: readonly RunEntry[];
  /**
   * The page at a URL path (`/`, `/compare?a=<slug>&b=<slug>`, `/runs/<slug>/index.html`, `/runs/<slug>/units.js`,
   * `/runs/<slug>/units/<n>.html`); a query string is read by `/compare` only.
   */
  get(path: string): Promise<SiteResponse>;
  /**
   * Writes every page under `outDir` (index.html, and per run its page, units.js and one page per unit; with exactly
   * two readable runs, compare.html: the first as A, the second as B).
   */
  writeStatic(outDir: string): Promise<{ files: number }>;
}

/** What a run's pages are built from, loaded once on first use. */
interface LoadedRun {
  index: UnitIndex | null;
  grid: {
    head: RunHead;
    scenarios: Map<string, Scenario> | { error: string };
    rules: Map<string, ExposureRuleOf>;
  } | null;
  error: string | null;
}

const HTML = 'text/html; charset=utf-8';
const notFound = (): SiteResponse => ({ status: 404, type: 'text/plain; charset=utf-8', body: 'not found' });
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Builds the site over `dirs` (each read into its run-list entry now; units are indexed when a run is opened). */
export function createViewSite(dirs: readonly string[]): ViewSite {
  const entries = dirs.map((dir, i) => readRunEntry(dir, i + 1));
  const bySlug = new Map(entries.map((e) => [e.slug, e]));
  const loaded = new Map<string, Promise<LoadedRun>>();
  let prices: PriceTable | null = null;
  let batchPrices: PriceTable | null = null;

  async function load(entry: RunEntry): Promise<LoadedRun> {
    try {
      const file = unitFileOf(entry.dir, entry.experiment);
      // A run of an unknown kind is shown generically: its units' stored lines.
      const kind = findRunKind(entry.experiment);
      const index = file === null ? null : indexUnits(file, kind?.viewer.index ?? 'generic');
      if (!kind?.viewer.transcripts) return { index, grid: null, error: null };
      const head = readRunHead(entry.dir);
      const scenarios = await loadRunScenarios(head, kind.viewer.transcripts).then(
        (s) => (s.kind === 'policy' ? s.byId : { error: 'not policy scenarios' }),
        (error: unknown) => ({ error: messageOf(error) }),
      );
      const rules = await exposureRules(head.manifest.spec.systems).catch(() => new Map<string, ExposureRuleOf>());
      return { index, grid: { head, scenarios, rules }, error: null };
    } catch (error) {
      return { index: null, grid: null, error: messageOf(error) };
    }
  }
  const run = (entry: RunEntry) => {
    const known = loaded.get(entry.slug);
    if (known) return known;
    const promise = load(entry);
    loaded.set(entry.slug, promise);
    return promise;
  };

  function unitPage(entry: RunEntry, state: LoadedRun, n: number, text: string, line: number): string {
    const row = JSON.parse(text) as unknown;
    if (!state.grid) return genericUnitPage(entry, state.index!.data.ids[n]!, line, row);
    const record = row as UnitRecord;
    const { head, scenarios, rules } = state.grid;
    const scenario =
      'error' in scenarios
        ? scenarios
        : (scenarios.get(record.key.scenario) ?? { error: `scenario ${record.key.scenario} is not one of the run's` });
    prices ??= loadPrices();
    batchPrices ??= loadPrices(null, 'batch');
    return gridTranscriptPage({
      entry,
      record,
      line,
      scenario,
      probe: head.probes.get(probeIdOf(record.key.system, record.key.mode, record.key.scenario)),
      rule: rules.get(record.key.system),
      prices,
      batchPrices,
    });
  }

  const readable = () => entries.filter((e) => e.readError === null);
  const figures = new Map<string, Promise<string>>();
  const figuresOf = (entry: RunEntry) => {
    const known = figures.get(entry.slug);
    if (known) return known;
    const page = runFiguresPage(entry);
    figures.set(entry.slug, page);
    return page;
  };

  async function compare(slugA: string | null, slugB: string | null, prefix: string): Promise<SiteResponse> {
    const [a, b] = [bySlug.get(slugA ?? ''), bySlug.get(slugB ?? '')];
    if (!a || !b || a.readError !== null || b.readError !== null) return notFound();
    const [stateA, stateB] = await Promise.all([run(a), run(b)]);
    let body: string;
    try {
      const comparison = compareEntries(a, b);
      body = comparePage({ entry: a, index: stateA.index }, { entry: b, index: stateB.index }, comparison, prefix);
    } catch (error) {
      body = frame(
        'compare · stalebench',
        `<p><a href="${prefix}index.html">all runs</a></p><p class="warning" id="compare-error">${escapeHtml(`${a.dir} vs ${b.dir}: ${messageOf(error)}`)}</p>`,
      );
    }
    return { status: 200, type: HTML, body };
  }

  async function get(target: string): Promise<SiteResponse> {
    const url = new URL(target, 'http://view.invalid');
    const path = url.pathname;
    if (path === '/' || path === '/index.html')
      return { status: 200, type: HTML, body: runListPage(entries, { compare: 'form' }) };
    if (path === '/compare') return compare(url.searchParams.get('a'), url.searchParams.get('b'), '');
    const match = /^\/runs\/([^/]+)\/(index\.html|figures\.html|units\.js|units\/(\d{1,9})\.html)?$/.exec(path);
    const entry = match ? bySlug.get(match[1]!) : undefined;
    if (!match || !entry || entry.readError !== null) return notFound();
    const state = await run(entry);
    const page = match[2] ?? 'index.html';
    if (page === 'index.html') {
      const body = state.error
        ? frame(entry.dir, `<p class="warning" id="run-error">${entry.dir}: ${state.error}</p>`)
        : runPage(entry);
      return { status: 200, type: HTML, body };
    }
    if (page === 'figures.html') return { status: 200, type: HTML, body: await figuresOf(entry) };
    if (!state.index) return notFound();
    if (page === 'units.js')
      return { status: 200, type: 'text/javascript; charset=utf-8', body: unitsScript(state.index) };
    const n = Number(match[3]);
    const span = state.index.spans[n];
    if (!span) return notFound();
    return { status: 200, type: HTML, body: unitPage(entry, state, n, readSpan(state.index.file, span), span.line) };
  }

  async function writeStatic(outDir: string): Promise<{ files: number }> {
    let files = 0;
    const write = (path: string, body: string) => {
      const target = join(outDir, ...path.split('/').filter(Boolean));
      makeDirectory(dirname(target));
      writeFileSync(target, body);
      files += 1;
    };
    const pair = readable();
    const canCompare = pair.length === 2;
    write('/index.html', runListPage(entries, { compare: canCompare ? 'compare.html' : null }));
    if (canCompare) write('/compare.html', (await compare(pair[0]!.slug, pair[1]!.slug, '')).body);
    for (const entry of entries) {
      if (entry.readError !== null) continue;
      const base = `/runs/${entry.slug}`;
      write(`${base}/index.html`, (await get(`${base}/index.html`)).body);
      if (hasFigures(entry)) write(`${base}/figures.html`, await figuresOf(entry));
      const state = await run(entry);
      if (!state.index) continue;
      write(`${base}/units.js`, unitsScript(state.index));
      // One pass over the unit file: each unit's page from its last line (the line the index kept).
      const kept = new Map(state.index.spans.map((span, n) => [span.offset, n]));
      for (const { text, offset, line } of linesWithOffsets(state.index.file)) {
        const n = kept.get(offset);
        if (n !== undefined) write(`${base}/units/${n}.html`, unitPage(entry, state, n, text, line));
      }
    }
    return { files };
  }

  return { entries, get, writeStatic };
}

/** `units.js`: the run's index as one assignment (a script loads from file:// where a JSON fetch would not). */
function unitsScript(index: UnitIndex): string {
  return `window.VIEW_RUN = ${JSON.stringify(index.data).replace(/</g, '\\u003c')};\n`;
}
