import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion } from './rank-fusion.js';

describe('reciprocalRankFusion (Graphiti rrf, rank constant 1)', () => {
  it('sums 1/rank over the lists and sorts by the sum', () => {
    expect(
      reciprocalRankFusion([
        ['a', 'b', 'c'],
        ['c', 'd'],
      ]),
    ).toEqual([
      { id: 'c', score: 1 / 3 + 1 },
      { id: 'a', score: 1 },
      { id: 'b', score: 1 / 2 },
      { id: 'd', score: 1 / 2 },
    ]);
  });

  it('keeps first-seen order on ties: the first list, then ids only later lists have', () => {
    expect(reciprocalRankFusion([['x'], ['y']]).map((entry) => entry.id)).toEqual(['x', 'y']);
    expect(
      reciprocalRankFusion([
        ['p', 'q'],
        ['q', 'p'],
      ]).map((entry) => entry.id),
    ).toEqual(['p', 'q']);
    expect(reciprocalRankFusion([[], ['y', 'z']]).map((entry) => entry.id)).toEqual(['y', 'z']);
  });

  it('drops only scores below minScore (>=, default 0 keeps everything)', () => {
    expect(reciprocalRankFusion([['a', 'b']], 1, 0.5).map((entry) => entry.id)).toEqual(['a', 'b']);
    expect(reciprocalRankFusion([['a', 'b']], 1, 0.51).map((entry) => entry.id)).toEqual(['a']);
    expect(reciprocalRankFusion([['a', 'b']], 60)[0]?.score).toBe(1 / 60);
  });
});
