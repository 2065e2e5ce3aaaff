import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, UnknownComponentError } from './errors.js';
import { argsOf, createComponent, defineRegistry, factory, helpLines, recordOf, specPartSchema } from './registry.js';

const SHAPES = defineRegistry('shape', {
  square: factory({
    summary: 'four equal sides',
    args: z.object({ side: z.number().positive().default(1) }).strict(),
    create: async ({ side }, context: { unit: string }) => ({ area: `${side * side} ${context.unit}` }),
  }),
  dot: factory({ summary: 'no sides', args: z.object({}).strict(), create: async () => ({ area: '0' }) }),
});

describe('registry', () => {
  it('lists its ids in order and refuses an unknown id, a prototype key included, naming every available id', () => {
    expect(SHAPES.ids).toEqual(['square', 'dot']);
    expect(SHAPES.has('toString')).toBe(false);
    expect(() => SHAPES.get('circle')).toThrow(UnknownComponentError);
    expect(() => SHAPES.get('toString')).toThrow('unknown shape "toString"; available: square, dot');
  });

  it('records {kind, id, args} with defaults filled in, and refuses bad args with their path', () => {
    expect(SHAPES.record('square')).toEqual({ kind: 'shape', id: 'square', args: { side: 1 } });
    expect(SHAPES.record('square', { side: 3 })).toEqual({ kind: 'shape', id: 'square', args: { side: 3 } });
    const error = (() => {
      try {
        SHAPES.record('square', { side: -1, colour: 'red' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).source).toBe('shape "square" arguments');
    expect((error as InvalidInputError).issues.map((issue) => issue.path).sort()).toEqual(['', 'side']);
  });

  it('creates through the line with typed args and tags the instance with its record; a direct instance has none', async () => {
    const square = await createComponent(SHAPES, 'square', { side: 2 }, { unit: 'm²' });
    expect(square).toEqual({ area: '4 m²' });
    expect(recordOf(square)).toEqual({ kind: 'shape', id: 'square', args: { side: 2 } });
    expect(recordOf({ area: '4 m²' })).toBeUndefined();
    await expect(createComponent(SHAPES, 'square', { side: 'two' }, { unit: 'm' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });

  it('checks a run-spec part against its line and keeps it as given (defaults are not written into the spec)', () => {
    const schema = specPartSchema(SHAPES);
    expect(schema.parse({ id: 'square' })).toEqual({ id: 'square' });
    expect(argsOf({ id: 'square', side: 2 })).toEqual({ side: 2 });
    const unknown = schema.safeParse({ id: 'circle' });
    expect(unknown.success ? [] : unknown.error.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['id', 'unknown shape "circle"; available: square, dot'],
    ]);
    const bad = schema.safeParse({ id: 'square', side: 0, colour: 'red' });
    expect(bad.success ? [] : bad.error.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['', 'side']);
  });

  it('prints one --help line per id', () => {
    expect(helpLines(SHAPES, '  ').split('\n')).toEqual(['  square  four equal sides', '  dot     no sides']);
  });
});
