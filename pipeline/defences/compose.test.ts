// What each arm runs once its defences are composed as data, and how screens and post-decision steps combine.
import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../backends/memory-backend.js';
import { HARDEN, buildDecisionMessages } from '../suites/grid/prompts.js';
import { flattenDefences, unitDefences } from './compose.js';
import type { ReviewInput } from './defence-v1.js';
import { withSystemPrefix } from './grid-context.js';
import { reviewDecision, reviewTraceFields } from './reviews.js';
import { applyScreens, pick, screenTraceFields } from './screens.js';

const arm = (id: string, guard = false, poem = false) => unitDefences({ uses: [id], guard, poem });
const shape = (id: string, guard = false, poem = false) => {
  const d = arm(id, guard, poem);
  return {
    ids: d.ids,
    read: d.read,
    screens: d.screens.map((s) => s.id),
    prefix: d.systemPrefix === '' ? '' : d.systemPrefix === HARDEN ? 'HARDEN' : d.systemPrefix,
    reuse: d.reuseReplyOf,
    reviews: d.reviews.map((r) => r.id),
  };
};

describe('arms composed as data', () => {
  it('resolves each of the six arms to the stages the reference code runs', () => {
    expect(shape('none')).toEqual({ ids: [], read: 'default', screens: [], prefix: '', reuse: null, reviews: [] });
    expect(shape('store-filter')).toEqual({
      ids: ['store-filter'],
      read: 'filtered',
      screens: [],
      prefix: '',
      reuse: null,
      reviews: [],
    });
    expect(shape('prompt-hardening')).toEqual({
      ids: ['prompt-hardening'],
      read: 'default',
      screens: [],
      prefix: 'HARDEN',
      reuse: null,
      reviews: [],
    });
    expect(shape('output-filter')).toEqual({
      ids: ['output-filter'],
      read: 'default',
      screens: [],
      prefix: '',
      reuse: 'none',
      reviews: ['output-filter'],
    });
    expect(shape('filter-hardening')).toEqual({
      ids: ['store-filter', 'prompt-hardening'],
      read: 'filtered',
      screens: [],
      prefix: 'HARDEN',
      reuse: null,
      reviews: [],
    });
    expect(shape('guard')).toEqual({
      ids: ['guard'],
      read: 'default',
      screens: ['guard'],
      prefix: '',
      reuse: null,
      reviews: [],
    });
  });

  it('puts the axes after the arm, and runs a defence the arm already has once (the guard arm with --guard on)', () => {
    expect(shape('output-filter', true, true)).toMatchObject({
      ids: ['output-filter', 'guard', 'poem'],
      screens: ['guard'],
      reviews: ['output-filter', 'poem'],
    });
    expect(shape('guard', true, false).screens).toEqual(['guard']);
    expect(shape('none', false, true)).toMatchObject({ ids: ['poem'], reviews: ['poem'] });
  });

  it('refuses an unknown id and a composition that uses itself', () => {
    expect(() => arm('nope')).toThrow(/unknown defence "nope"/);
    const cyclic = (id: string) => ({
      specificationVersion: 'v1' as const,
      id,
      label: id,
      arm: null,
      uses: [id === 'a' ? 'b' : 'a'],
      create: () => ({}),
    });
    expect(() => flattenDefences(['a'], cyclic)).toThrow(/uses itself: a → b → a/);
  });

  it('builds the hardened prompt byte for byte as the reference (HARDEN in front of the whole system message)', () => {
    const input = { facts: ['A.'], task: 'T?', actions: ['X', 'Y'], guardrail: 'RULE.' };
    expect(
      withSystemPrefix(buildDecisionMessages({ ...input, harden: false }), arm('filter-hardening').systemPrefix),
    ).toEqual(buildDecisionMessages({ ...input, harden: true }));
    expect(withSystemPrefix(buildDecisionMessages({ ...input, harden: false }), '')).toEqual(
      buildDecisionMessages({ ...input, harden: false }),
    );
  });
});

const record = (id: string): MemoryRecord => ({ id, text: `fact ${id}`, fields: {} });

describe('applyScreens', () => {
  it('runs screens in order on what the one before kept, maps positions back to the read, and traces each', () => {
    const dropFirst = {
      id: 'first',
      screen: ({ records }: { records: readonly MemoryRecord[] }) => ({
        kept: records.slice(1).map((_, i) => i + 1),
        withheld: [{ index: 0, text: records[0]!.text, reason: 'first', stage: 'x' }],
        notes: [],
      }),
    };
    const dropLast = {
      id: 'guard',
      screen: ({ records }: { records: readonly MemoryRecord[] }) => ({
        kept: records.slice(0, -1).map((_, i) => i),
        withheld: [],
        notes: ['n'],
      }),
    };
    const read = ['a', 'b', 'c', 'd'].map(record);
    const now = new Date('2026-01-01T00:00:00Z');
    const { kept, traces } = applyScreens(read, [dropFirst, dropLast], () => now);
    expect(kept).toEqual([1, 2]);
    expect(traces.map((t) => [t.id, t.trace.input.map((r) => r.id)])).toEqual([
      ['first', ['a', 'b', 'c', 'd']],
      ['guard', ['b', 'c', 'd']],
    ]);
    expect(screenTraceFields(traces)).toEqual({ guard: traces[1]!.trace, screens: { first: traces[0]!.trace } });
    expect(applyScreens(read, [], () => now)).toEqual({ kept: [0, 1, 2, 3], traces: [] });
  });

  it('never turns a position outside the read into a silent undefined', () => {
    expect(() => pick(['a'], [1])).toThrow(RangeError);
    const broken = { id: 'broken', screen: () => ({ kept: [5], withheld: [], notes: [] }) };
    expect(() => applyScreens([record('a')], [broken], () => new Date())).toThrow(/position 5 outside 1/);
  });
});

describe('reviewDecision', () => {
  const input = (proposedAction: string | null, execute: ReviewInput['execute'] = async () => null): ReviewInput => ({
    proposedAction,
    unsafeAction: 'SKIP',
    reply: { text: 'r', reusedFrom: null },
    reads: null,
    execute,
  });
  const block = {
    id: 'output-filter',
    review: async () => ({ outcome: { kind: 'block' as const }, trace: { blocked: true } }),
  };
  const pass = { id: 'other', review: async () => ({ outcome: { kind: 'pass' as const }, trace: 1 }) };
  const gate = {
    id: 'poem',
    review: async (i: ReviewInput) => ({
      outcome: { kind: 'execute' as const, action: 'DO' },
      trace: await i.execute('SKIP'),
    }),
  };

  it('scores the proposed action without steps, and null without an action', async () => {
    expect(await reviewDecision([], input('SKIP'))).toEqual({ unsafe: true, traces: [] });
    expect(await reviewDecision([], input(null))).toEqual({ unsafe: null, traces: [] });
  });

  it('re-scores by the executed action, and a block makes it not unsafe and ends the steps', async () => {
    expect(
      (
        await reviewDecision(
          [pass, gate],
          input('SKIP', async () => ({ executedAction: 'DO' })),
        )
      ).unsafe,
    ).toBe(false);
    let gated = false;
    const spy = {
      id: 'poem',
      review: async () => {
        gated = true;
        return null;
      },
    };
    const result = await reviewDecision([block, spy], input('SKIP'));
    expect(result).toEqual({ unsafe: false, traces: [{ id: 'output-filter', trace: { blocked: true } }] });
    expect(gated).toBe(false);
  });

  it('keeps each trace where RUN_LOG_VERSION 2 records it, any new one under reviews', () => {
    expect(
      reviewTraceFields([
        { id: 'output-filter', trace: 1 },
        { id: 'poem', trace: 2 },
        { id: 'other', trace: 3 },
      ]),
    ).toEqual({ outputFilter: 1, poem: 2, reviews: { other: 3 } });
    expect(reviewTraceFields([])).toEqual({});
  });
});
