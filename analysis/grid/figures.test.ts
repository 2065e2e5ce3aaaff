import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import {
  exposureBySystemFigure,
  figuresFor,
  propagationByRoleFigure,
  unsafeByModelFigure,
  unsafeBySystemFigure,
  writeBackHopsFigure,
} from './figures.js';
import type { Dependence, PaperTable, TableCell } from '../paper-table.js';
import type { PaperTableId } from '../tables/index.js';
import { wilson } from '../statistics.js';

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
const notApplicable = (row: string, column: string, reason: string): TableCell => ({
  row,
  column,
  dependence: 'model-dependent',
  status: 'n/a',
  reason,
});
const table = (
  id: PaperTableId,
  rows: string[],
  columns: string[],
  cells: TableCell[],
  simulated = false,
): PaperTable => ({
  id,
  title: `Table ${id}`,
  rows,
  columns,
  cells,
  simulated,
  runs: ['run-a'],
  notes: [],
});

const defences6 = ['no defense', 'filter', 'prompt'];
const table6 = table(
  '6',
  ['graphiti', 'cognee', 'pooled'],
  ['exposure', 'rank', ...defences6],
  [
    proportion('graphiti', 'exposure', 81, 81, 'model-independent'),
    { row: 'graphiti', column: 'rank', value: 1, dependence: 'model-independent', status: 'ok' },
    proportion('graphiti', 'no defense', 358, 810),
    proportion('graphiti', 'filter', 0, 810),
    proportion('graphiti', 'prompt', 311, 810),
    proportion('cognee', 'exposure', 0, 81, 'model-independent'),
    ...defences6.map((column) => notApplicable('cognee', column, 'no revoked record returned')),
    proportion('pooled', 'no defense', 699, 1620),
    // pooled has no filter or prompt cell and no exposure cell: missing, never 0.
  ],
);
const table7 = table(
  '7',
  ['GPT-5.5', 'Grok-4'],
  ['no defense', 'filter'],
  [
    proportion('GPT-5.5', 'no defense', 60, 180),
    notApplicable('GPT-5.5', 'filter', 'arm not run'),
    proportion('Grok-4', 'no defense', 94, 180),
    proportion('Grok-4', 'filter', 0, 180),
  ],
  true,
);
const hops = ['default hop1', 'default hop2', 'filter hop1', 'filter hop2'];
const table14 = table(
  '14',
  ['direct', 'natural', 'no write-back', 'hop 0'],
  ['stored active', ...hops, 'default', 'filter', 'poisoned'],
  [
    proportion('direct', 'stored active', 356, 356),
    ...hops.map((column, index) => proportion('direct', column, 250 + 30 * index, 356)),
    ...hops.map((column, index) => proportion('natural', column, 20 + 5 * index, 358)),
    proportion('no write-back', 'default', 358, 810),
    proportion('no write-back', 'filter', 0, 810),
    proportion('hop 0', 'poisoned', 714, 1620),
  ],
);
const roles = ['executor unsafe', 'reviewer unsafe', 'planner unsafe'];
const table15 = table(
  '15',
  ['shared, default', 'shared, filtered'],
  [...roles, 'reviewer unsafe | poisoned', 'all three unsafe', 'mean unsafe roles'],
  [
    ...roles.map((column, index) => proportion('shared, default', column, 354 + 2 * index, 810)),
    ...roles.map((column) => proportion('shared, filtered', column, 0, 810)),
    proportion('shared, default', 'reviewer unsafe | poisoned', 341, 354),
    { row: 'shared, default', column: 'mean unsafe roles', value: 1.32, dependence: 'model-dependent', status: 'ok' },
  ],
);
const all = [table6, table7, table14, table15];

/** Minimal XML well-formedness check: one root element, balanced tags, quoted attributes, only known entities. */
function parseXml(xml: string): { name: string; attributes: Map<string, string> } {
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/y;
  const badEntity = /&(?!(?:amp|lt|gt|quot|#\d+|#x[0-9a-fA-F]+);)/;
  const stack: string[] = [];
  let root: { name: string; attributes: Map<string, string> } | null = null;
  let index = 0;
  while (index < xml.length) {
    const next = xml.indexOf('<', index);
    const text = xml.slice(index, next === -1 ? xml.length : next);
    if (badEntity.test(text)) throw new Error(`bad entity in text near ${index}`);
    if (stack.length === 0 && text.trim() !== '') throw new Error(`text outside the root near ${index}`);
    if (next === -1) break;
    tag.lastIndex = next;
    const match = tag.exec(xml);
    if (!match) throw new Error(`malformed tag at ${next}: ${xml.slice(next, next + 40)}`);
    const [whole, closing, name, attributeText, selfClosing] = match;
    if (badEntity.test(attributeText!)) throw new Error(`bad entity in attributes of <${name}>`);
    if (closing) {
      if (stack.pop() !== name) throw new Error(`unbalanced </${name}> at ${next}`);
    } else {
      if (stack.length === 0) {
        if (root) throw new Error('more than one root element');
        const attributes = new Map(
          [...attributeText!.matchAll(/([\w:.-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!] as const),
        );
        if (attributes.size !== [...attributeText!.matchAll(/[\w:.-]+="/g)].length)
          throw new Error('duplicate root attribute');
        root = { name: name!, attributes };
      }
      if (!selfClosing) stack.push(name!);
    }
    index = next + whole.length;
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (!root) throw new Error('no root element');
  return root;
}

/** The `<rect class="bar">` elements of a figure, with their data attributes. */
const bars = (svg: string) =>
  [
    ...svg.matchAll(
      /<rect class="bar" data-row="([^"]*)" data-column="([^"]*)" data-rate="([^"]*)"[^>]*height="([^"]*)"/g,
    ),
  ].map((m) => ({ row: m[1], column: m[2], rate: Number(m[3]), height: Number(m[4]) }));

describe('figures: standalone SVG', () => {
  const figures = figuresFor(all);

  test('figuresFor draws every figure whose table is present, in a fixed order', () => {
    expect(figures.map((f) => f.id)).toEqual([
      'unsafe-by-model',
      'unsafe-by-system',
      'exposure-by-system',
      'write-back-hops',
      'write-back-hops-line',
      'propagation-by-role',
    ]);
    expect(figuresFor([table14]).map((f) => f.id)).toEqual(['write-back-hops', 'write-back-hops-line']);
    expect(figuresFor([])).toEqual([]);
  });

  test.each(figuresFor(all).map((f) => [f.id, f] as const))(
    '%s: one <svg> root with xmlns and a finite viewBox, no NaN/undefined',
    (_, figure) => {
      const root = parseXml(figure.svg);
      expect(root.name).toBe('svg');
      expect(root.attributes.get('xmlns')).toBe('http://www.w3.org/2000/svg');
      const box = (root.attributes.get('viewBox') ?? '').split(' ').map(Number);
      expect(box).toHaveLength(4);
      expect(box.every(Number.isFinite) && box[2]! > 0 && box[3]! > 0).toBe(true);
      expect(figure.svg).not.toMatch(/NaN|undefined|Infinity|\[object/);
      expect(figure.svg).not.toMatch(/<script|<style|href=|<image|url\(/i);
      // Bars, or points on a line chart (write-back-hops-line).
      const marks = bars(figure.svg).length + (figure.svg.match(/<circle class="point"/g)?.length ?? 0);
      expect(marks).toBeGreaterThan(0);
      // One whisker per mark (every fixture cell carries its interval).
      expect(figure.svg.match(/class="whisker"/g)?.length).toBe(marks);
    },
  );

  test('sim in the title exactly when the table is simulated', () => {
    const model = unsafeByModelFigure(table7);
    expect(model.simulated).toBe(true);
    expect(model.title).toContain('sim (simulated)');
    expect(model.svg).toContain(`<title id="figure-unsafe-by-model-title">${model.title}</title>`);
    expect(model.svg).toMatch(/font-weight="bold">[^<]*sim \(simulated\)<\/text>/);
    const system = unsafeBySystemFigure(table6);
    expect(system.simulated).toBe(false);
    expect(system.title).not.toMatch(/sim/);
  });

  test('n/a and missing cells are skipped with a note, never drawn as 0; a measured 0 is drawn', () => {
    const system = unsafeBySystemFigure(table6);
    const drawn = bars(system.svg);
    expect(drawn.filter((bar) => bar.row === 'cognee')).toEqual([]);
    expect(drawn.filter((bar) => bar.row === 'pooled').map((bar) => bar.column)).toEqual(['no defense']);
    expect(system.svg).not.toMatch(/class="group-label"[^>]*><title>cognee</);
    expect(system.svg).toContain('Not plotted, n/a (no revoked record returned): cognee');
    expect(system.svg).toContain('Not plotted, no cell: pooled (filter, prompt)');
    const zero = drawn.find((bar) => bar.row === 'graphiti' && bar.column === 'filter');
    expect(zero?.rate).toBe(0);
    const model = unsafeByModelFigure(table7);
    expect(bars(model.svg).map((bar) => `${bar.row}/${bar.column}`)).toEqual([
      'GPT-5.5/no defense',
      'Grok-4/no defense',
      'Grok-4/filter',
    ]);
    expect(model.svg).toMatch(/class="skipped" data-row="GPT-5.5" data-column="filter"/);
    expect(model.svg).toContain('Not plotted, n/a (arm not run): GPT-5.5 (filter)');
  });

  test('bar heights are proportional to the rate', () => {
    const drawn = bars(unsafeBySystemFigure(table6).svg);
    const graphiti = drawn.find((bar) => bar.row === 'graphiti' && bar.column === 'no defense')!;
    const pooled = drawn.find((bar) => bar.row === 'pooled' && bar.column === 'no defense')!;
    expect(graphiti.rate).toBeCloseTo(358 / 810, 4);
    expect(graphiti.height / pooled.height).toBeCloseTo(358 / 810 / (699 / 1620), 2);
  });

  test('exposure, write-back and propagation figures plot their own columns only', () => {
    expect(bars(exposureBySystemFigure(table6).svg).map((bar) => `${bar.row}/${bar.column}`)).toEqual([
      'graphiti/exposure',
      'cognee/exposure',
    ]);
    const writeBack = writeBackHopsFigure(table14);
    expect(new Set(bars(writeBack.svg).map((bar) => bar.row))).toEqual(new Set(['direct', 'natural']));
    expect(
      bars(writeBack.svg)
        .map((bar) => bar.column)
        .slice(0, 4),
    ).toEqual(hops);
    expect(writeBack.svg.match(/class="reference"/g)).toHaveLength(2);
    expect(writeBack.svg).toContain('no write-back, default 44.2%');
    expect(bars(propagationByRoleFigure(table15).svg).map((bar) => bar.column)).toEqual([...roles, ...roles]);
  });

  test('labels are escaped and the SVG stays well-formed', () => {
    const hostile = `mem0 <b>&"x"</b> 'q'`;
    const figure = exposureBySystemFigure(
      table('6', [hostile], ['exposure'], [proportion(hostile, 'exposure', 3, 9, 'model-independent')]),
    );
    expect(() => parseXml(figure.svg)).not.toThrow();
    expect(figure.svg).not.toContain('<b>');
    expect(figure.svg).toContain('mem0 &lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt; &#39;q&#39;');
  });

  test('a figure with nothing to plot still renders, and says so', () => {
    const figure = exposureBySystemFigure(
      table('6', ['cognee'], ['exposure'], [notApplicable('cognee', 'exposure', 'system not run')]),
    );
    expect(() => parseXml(figure.svg)).not.toThrow();
    expect(bars(figure.svg)).toEqual([]);
    expect(figure.svg).toContain('No plottable cells.');
  });

  test('the wrong source table is an InvalidInputError', () => {
    expect(() => writeBackHopsFigure(table6)).toThrow(InvalidInputError);
  });

  test('the checker itself rejects malformed markup', () => {
    expect(() => parseXml('<svg><g></svg>')).toThrow();
    expect(() => parseXml('<svg/><svg/>')).toThrow();
    expect(() => parseXml('<svg>a & b</svg>')).toThrow();
    expect(() => parseXml('<svg x=1/>')).toThrow();
  });
});
