import { parseIsoInstant, pythonTimestamp } from '#python-compat/index.js';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './iso-timestamp.js';
import { seededRandom } from '#core/seeded-random.js';

/** τ of a time string as the guard read it before the fast path: CPython's parse after `Z` → `+00:00`. */
function parsed(text: string): number | null {
  const instant = parseIsoInstant(text.replaceAll('Z', '+00:00'));
  return instant === null ? null : pythonTimestamp(instant);
}

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

describe('isoTimestamp', () => {
  it('equals the CPython-exact parse wherever it answers, and answers on the usual shapes', () => {
    const random = seededRandom(3240);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    let answered = 0;
    for (let draw = 0; draw < 60_000; draw += 1) {
      // Mostly valid fields, sometimes just out of range (month 13, day 30 of February, hour 24, second 60, year 1).
      const year = pick([1, 2, 1899, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9999, Math.floor(random() * 10_000)]);
      const month = pick([0, 1, 2, 12, 13, 1 + Math.floor(random() * 12)]);
      const day = pick([0, 1, 28, 29, 30, 31, 32, 1 + Math.floor(random() * 31)]);
      const clock = `${pad(pick([0, 23, 24, Math.floor(random() * 24)]), 2)}:${pad(pick([0, 59, 60, Math.floor(random() * 60)]), 2)}:${pad(pick([0, 59, 60, Math.floor(random() * 60)]), 2)}`;
      const date = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
      const fraction = pick(['', '', '.000', '.000000', '.123', '.000001', '.0000', '.0', '.000000000']);
      const zone = pick(['', 'Z', '+00:00', '-00:00', '+01:00', 'z', 'Z ', '+00:00:00']);
      const separator = pick(['T', 'T', 'T', ' ', 't']);
      const text = pick([date, date, `${date}${separator}${clock}${fraction}${zone}`, `${date}${zone}`]);
      const fast = isoTimestamp(text);
      if (fast === undefined) continue;
      answered += 1;
      expect(fast, text).toBe(parsed(text));
    }
    expect(answered).toBeGreaterThan(10_000);
    for (const text of ['2024-07-22', '2024-07-21T16:54:02', '2024-03-20T04:38:44.000Z', '2025-12-08T06:44:36+00:00'])
      expect(isoTimestamp(text), text).toBe(parsed(text));
  });

  it('leaves every other string to the full parse', () => {
    for (const text of ['', 'soon', '20240722', '2024-W30-1', '2024-07-22T16:54', '2024-07-22 16:54:02', '0001-01-01'])
      expect(isoTimestamp(text), text).toBeUndefined();
  });
});
