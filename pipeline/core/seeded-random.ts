// A small seeded pseudo-random generator (mulberry32) for generated test inputs and the bench corpus: the same seed
// gives the same numbers on every machine, so a failure names a seed that reproduces it.

/**
 * A generator of numbers in [0, 1) from `seed` (mulberry32).
 *
 * @example const random = seededRandom(7); const pick = items[Math.floor(random() * items.length)];
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
