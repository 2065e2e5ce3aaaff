// The layers (issue #13 item 5): no import cycles anywhere, and each layer imports only what it may. Run by `pnpm test`.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, readImportGraph, type ImportGraph } from './import-graph.js';

const ROOT = join(import.meta.dirname, '..');
const FOLDERS = ['core', 'python-compat', 'backends', 'guard', 'scenarios', 'pipeline', 'analysis', 'notebooks'];
const folderOf = (file: string) => file.split('/')[0]!;
// Tests and their helpers may reach across layers (an e2e test drives the CLI); the rules are about the product code.
const isTestCode = (file: string) => /\.test\.ts$/.test(file) || file.includes('/test-support/');
// backends/integrity/ measures the pipeline's own run log and seeds from pipeline/integrity/ plans (issue #14); it
// belongs with pipeline/integrity/ and is the one place a lower layer still imports pipeline/.
const KNOWN_EXCEPTIONS = ['backends/integrity/'];

/** Every import edge of product code, `from -> to`, for which `forbidden` holds. */
function edges(graph: ImportGraph, forbidden: (from: string, to: string) => boolean): string[] {
  return [...graph].flatMap(([from, targets]) => (isTestCode(from) ? [] : targets.filter((to) => forbidden(from, to)).map((to) => `${from} -> ${to}`)));
}

describe('layers', () => {
  const graph = readImportGraph(ROOT, FOLDERS);

  it('reads the whole project', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('pipeline/run.ts')).toContain('analysis/index.ts');
  });

  it('has no import cycle (static, type-only and dynamic imports alike)', () => {
    expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('keeps core/ and python-compat/ at the bottom: errors.ts imports nothing, neither folder any other', () => {
    expect(graph.get('core/errors.ts')).toEqual([]);
    expect(edges(graph, (from, to) => folderOf(from) === 'core' && folderOf(to) !== 'core')).toEqual([]);
    expect(edges(graph, (from, to) => folderOf(from) === 'python-compat' && folderOf(to) !== 'python-compat')).toEqual([]);
  });

  it('keeps backends/, guard/ and scenarios/ below pipeline/ and analysis/', () => {
    const lower = (file: string) => ['backends', 'guard', 'scenarios'].includes(folderOf(file)) && !KNOWN_EXCEPTIONS.some((prefix) => file.startsWith(prefix));
    expect(edges(graph, (from, to) => lower(from) && ['pipeline', 'analysis'].includes(folderOf(to)))).toEqual([]);
  });

  it('lets analysis/ see pipeline/ only through pipeline/index.ts, and pipeline/ see analysis/ only through analysis/index.ts', () => {
    expect(edges(graph, (from, to) => folderOf(from) === 'analysis' && folderOf(to) === 'pipeline' && to !== 'pipeline/index.ts')).toEqual([]);
    expect(edges(graph, (from, to) => folderOf(from) === 'pipeline' && folderOf(to) === 'analysis' && to !== 'analysis/index.ts')).toEqual([]);
  });
});
