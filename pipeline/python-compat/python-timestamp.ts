// CPython's datetime.timestamp(): exact for an aware datetime, two roundings for a naive one (on a UTC host).
import type { ParsedInstant } from './python-fromisoformat.js';

/** 0001-01-02T00:00:00: the first naive wall time whose `timestamp()` CPython computes (it probes a day earlier). */
const FIRST_NAIVE_SECOND = -62_135_510_400;

/**
 * Python `dt.timestamp()` of a parsed instant, or `null` where CPython raises. Aware: `(dt − epoch) / 1 s`, one
 * correctly rounded division of the microseconds (any year). Naive, on a UTC host (the port reads a naive value as
 * UTC, stale-retrieval.md §10.11.7): `float(seconds) + microsecond / 1e6`, rounded twice as CPython's C code does,
 * and a ValueError for any time on 0001-01-01.
 *
 * @example pythonTimestamp({ seconds: 1721606400, microseconds: 123456, naive: false }) // 1721606400.123456
 */
export function pythonTimestamp(instant: ParsedInstant): number | null {
  if (!instant.naive) return exactSeconds(instant.seconds, instant.microseconds);
  if (instant.seconds < FIRST_NAIVE_SECOND) return null;
  return instant.seconds + instant.microseconds / 1e6;
}

/** The instant of a JavaScript Date as an aware datetime (a Date always names UTC). */
export function instantOfDate(date: Date): ParsedInstant {
  const milliseconds = date.getTime();
  const seconds = Math.floor(milliseconds / 1000);
  return { seconds, microseconds: (milliseconds - seconds * 1000) * 1000, naive: false };
}

/** `seconds + microseconds / 10⁶` correctly rounded: the exact decimal, read by `Number` (which rounds correctly). */
function exactSeconds(seconds: number, microseconds: number): number {
  const total = BigInt(seconds) * 1_000_000n + BigInt(microseconds);
  const magnitude = total < 0n ? -total : total;
  const fraction = String(magnitude % 1_000_000n).padStart(6, '0');
  return Number(`${total < 0n ? '-' : ''}${magnitude / 1_000_000n}.${fraction}`);
}
