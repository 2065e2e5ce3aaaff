// The layers (issue #13 item 5): no import cycles anywhere, and each layer imports only what it may. Run by `pnpm test`.
// pipeline/core/ and pipeline/python-compat/ are the bottom (the ground): they import nothing of ours outside themselves,
// and every folder imports them as #core/… and #python-compat/… (never by a relative climb). backends/, guard/ and scenarios/ import nothing else of pipeline/ (nor analysis/);
// analysis/ and the rest of pipeline/ see each other only through their index.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  importCycles,
  readImportGraph,
  readImportSpecifiers,
  readPackageImports,
  type ImportGraph,
} from './import-graph.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FOLDERS = ['backends', 'guard', 'scenarios', 'pipeline', 'analysis', 'notebooks'];
/** The bottom layers: folders inside pipeline/ that every folder may import. */
const BOTTOM = ['pipeline/core', 'pipeline/python-compat'];
/** A file's layer: one of the bottom folders, else its top-level folder. */
const layerOf = (file: string) => BOTTOM.find((folder) => file.startsWith(`${folder}/`)) ?? file.split('/')[0]!;
const isBottom = (file: string) => BOTTOM.includes(layerOf(file));
// Tests and their helpers may reach across layers (an e2e test drives the CLI); the rules are about the product code.
const isTestCode = (file: string) => /\.test\.ts$/.test(file) || file.includes('/test-support/');

/** Every import edge of product code, `from -> to`, for which `forbidden` holds. */
function edges(graph: ImportGraph, forbidden: (from: string, to: string) => boolean): string[] {
  return [...graph].flatMap(([from, targets]) =>
    isTestCode(from) ? [] : targets.filter((to) => forbidden(from, to)).map((to) => `${from} -> ${to}`),
  );
}

describe('layers', () => {
  const graph = readImportGraph(ROOT, FOLDERS);

  it('reads the whole project, the bottom folders inside pipeline/ included', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('pipeline/run/run-experiment.ts')).toContain('analysis/index.ts');
    expect(graph.get('pipeline/core/errors.ts')).toEqual([]);
    expect(graph.has('pipeline/python-compat/index.ts')).toBe(true);
  });

  it('has no import cycle (static, type-only and dynamic imports alike)', () => {
    expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('keeps pipeline/core/ and pipeline/python-compat/ at the bottom: neither imports anything of ours outside itself', () => {
    for (const folder of BOTTOM)
      expect(
        edges(graph, (from, to) => layerOf(from) === folder && layerOf(to) !== folder),
        folder,
      ).toEqual([]);
  });

  it('lets pipeline/python-compat/ use Node built-ins only', () => {
    const packages = readPackageImports(ROOT, ['pipeline/python-compat']);
    expect(packages.size).toBeGreaterThan(10);
    expect(edges(packages, (_, specifier) => !specifier.startsWith('node:'))).toEqual([]);
  });

  it('reaches the bottom through #core/… and #python-compat/… only, never by a relative climb (tests included)', () => {
    const written = readImportSpecifiers(ROOT, FOLDERS);
    const climbs = [...written].flatMap(([from, specifiers]) =>
      isBottom(from)
        ? []
        : specifiers
            .filter((specifier) => specifier.startsWith('.'))
            .filter((specifier) => isBottom(join(from, '..', specifier).split('\\').join('/')))
            .map((specifier) => `${from} -> ${specifier}`),
    );
    expect(climbs).toEqual([]);
  });

  it('lets every folder import the bottom (each of them does)', () => {
    const importers = new Set(
      [...graph].flatMap(([from, targets]) => (!isBottom(from) && targets.some(isBottom) ? [layerOf(from)] : [])),
    );
    expect([...importers]).toEqual(expect.arrayContaining(['analysis', 'backends', 'guard', 'pipeline', 'scenarios']));
  });

  it('keeps backends/, guard/ and scenarios/ below the rest of pipeline/ and below analysis/', () => {
    // No exception: the integrity targets, which seed from the suite's plans and measure the pipeline's own run log,
    // live in their suite's folder (pipeline/suites/integrity/targets/), above backends/ (issue #27 item 5).
    const lower = (file: string) => ['backends', 'guard', 'scenarios'].includes(layerOf(file));
    expect(edges(graph, (from, to) => lower(from) && ['pipeline', 'analysis'].includes(layerOf(to)))).toEqual([]);
  });

  it('lets analysis/ see pipeline/ only through pipeline/index.ts (and the suite registry, for suite reports), and pipeline/ see analysis/ only through analysis/index.ts', () => {
    // The suite registry's suites import analysis/index.ts (their renderers): analysis reaches it directly, from the
    // one file that renders suite runs, so that pipeline/index.ts never imports it (that would close a cycle).
    const doors = new Set(['pipeline/index.ts', 'pipeline/suites/index.ts']);
    expect(
      edges(graph, (from, to) => layerOf(from) === 'analysis' && layerOf(to) === 'pipeline' && !doors.has(to)),
    ).toEqual([]);
    expect(
      edges(graph, (from, to) => layerOf(from) === 'analysis' && to === 'pipeline/suites/index.ts').map(
        (edge) => edge.split(' -> ')[0],
      ),
    ).toEqual(['analysis/suite-report-run.ts']);
    expect(
      edges(
        graph,
        (from, to) => layerOf(from) === 'pipeline' && layerOf(to) === 'analysis' && to !== 'analysis/index.ts',
      ),
    ).toEqual([]);
  });
});
