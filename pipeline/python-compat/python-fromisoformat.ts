// ISO-8601 parsing as CPython's C `datetime.fromisoformat` does it; a value without a timezone is read as UTC.

/** A parsed instant as exact integers: whole seconds since the Unix epoch plus a 0–999999 microsecond part. */
export interface ParsedInstant {
  /** Whole seconds since the Unix epoch (a naive value read as UTC). */
  seconds: number;
  /** 0–999999. */
  microseconds: number;
  /** No timezone was given (Python: a naive datetime); `seconds` then reads the wall time as UTC. */
  naive: boolean;
}

/**
 * Parses what CPython `datetime.fromisoformat` accepts, following the C parser of 3.12 (the reference's runtime):
 * `YYYY-MM-DD`, `YYYYMMDD`, `YYYY-Www[-D]`, `YYYYWww[D]`; then **any** single separator character; then
 * `HH[:MM[:SS]]` or `HH[MM[SS]]`, a fraction after `.` or `,` (digits past six dropped), then `Z` or
 * `±HH[:MM[:SS[.f]]]`. A date alone is midnight. No timezone means UTC (the reference reads τ as local time:
 * §10.11.7, a documented deviation). Returns `null` wherever Python raises. CPython 3.11.7 gives the same result on
 * every vector of data/fixtures/python-compat/fromisoformat.json.
 */
export function parseIsoInstant(text: string): ParsedInstant | null {
  const chars = [...text];
  if (chars.length < 7) return null;
  const separator = separatorLocation(chars);
  const days = separator < 0 ? null : parseDate(chars.slice(0, separator).join(''));
  if (days === null) return null;
  let seconds = days * 86_400;
  let microseconds = 0;
  let naive = true;
  if (separator < chars.length) {
    const time = parseTime(chars.slice(separator + 1).join(''));
    if (!time) return null;
    const micro = time.microsecond - time.offsetMicroseconds; // −999999 … 1999998
    seconds += time.hour * 3600 + time.minute * 60 + time.second - time.offsetSeconds + Math.floor(micro / 1e6);
    microseconds = micro - Math.floor(micro / 1e6) * 1e6;
    naive = !time.zoned;
  }
  return { seconds, microseconds, naive };
}

/** CPython `_find_isoformat_datetime_separator`: where the date ends, decided by characters 4, 5, 8 and 10. */
function separatorLocation(chars: readonly string[]): number {
  const length = chars.length;
  if (length === 7) return 7;
  if (chars[4] === '-') {
    if (chars[5] !== 'W') return 10;
    if (length > 8 && chars[8] === '-') {
      if (length === 9) return -1;
      return length > 10 && isDigit(chars[10]) ? 8 : 10;
    }
    return 8;
  }
  if (chars[4] !== 'W') return 8;
  let index = 7;
  while (index < length && isDigit(chars[index])) index += 1;
  if (index < 9) return index;
  return index % 2 === 0 ? 7 : 8;
}

/** CPython `parse_isoformat_date` on the date part; returns days since 1970-01-01. */
function parseDate(date: string): number | null {
  const match = /^(\d{4})(-?)(?:W(\d{2})(?:\2(\d))?|(\d{2})\2(\d{2}))$/.exec(date);
  if (!match) return null;
  const year = Number(match[1]);
  if (year < 1) return null;
  if (match[3] !== undefined) {
    const week = Number(match[3]);
    const weekday = match[4] === undefined ? 1 : Number(match[4]);
    const jan4 = civilDays(year, 1, 4);
    const week1Monday = jan4 - isoWeekday(jan4);
    const weeks = Math.floor((civilDays(year, 12, 28) - week1Monday) / 7) + 1;
    if (week < 1 || week > weeks || weekday < 1 || weekday > 7) return null;
    const days = week1Monday + (week - 1) * 7 + (weekday - 1);
    return days < civilDays(1, 1, 1) || days > civilDays(9999, 12, 31) ? null : days;
  }
  const month = Number(match[5]);
  const day = Number(match[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return civilDays(year, month, day);
}

interface ClockParts {
  rv: number;
  hour: number;
  minute: number;
  second: number;
  microsecond: number;
}

/** CPython `parse_isoformat_time`: the clock, then `Z` or a signed offset (strictly within ±24 h). */
function parseTime(
  text: string,
): (Omit<ClockParts, 'rv'> & { offsetSeconds: number; offsetMicroseconds: number; zoned: boolean }) | null {
  const end = text.length;
  let zone = 0;
  do {
    const char = text.charAt(zone); // '' past the end, like C's NUL
    if (char === 'Z' || char === '+' || char === '-') break;
  } while (++zone < end);
  const clock = parseClock(text, 0, zone);
  if (clock.rv < 0 || clock.hour > 23 || clock.minute > 59 || clock.second > 59) return null;
  const result = { ...clock, offsetSeconds: 0, offsetMicroseconds: 0, zoned: zone < end };
  if (zone >= end) return clock.rv === 1 ? null : result;
  if (text.charAt(zone) === 'Z') return zone + 1 === end ? result : null;
  const sign = text.charAt(zone) === '-' ? -1 : 1;
  const offset = parseClock(text, zone + 1, end);
  if (offset.rv !== 0) return null;
  result.offsetSeconds = sign * (offset.hour * 3600 + offset.minute * 60 + offset.second);
  result.offsetMicroseconds = result.offsetSeconds === 0 ? 0 : sign * offset.microsecond; // offset 0 → UTC
  const totalMicroseconds = Math.abs(result.offsetSeconds * 1e6 + result.offsetMicroseconds);
  return totalMicroseconds < 86_400e6 ? result : null;
}

/**
 * CPython `parse_hh_mm_ss_ff` over `text[start, end)`. Like the C code it may read past `end` (into the
 * zone or the string's end, read as NUL); `rv` is negative on error and 1 when something follows the clock.
 */
function parseClock(text: string, start: number, end: number): ClockParts {
  const at = (index: number): string => (index < text.length ? text.charAt(index) : '\0');
  const values = [0, 0, 0];
  const fail = { rv: -3, hour: 0, minute: 0, second: 0, microsecond: 0 };
  let p = start;
  let hasSeparator = true;
  let microsecond = 0;
  const finish = (rv: number): ClockParts => ({
    rv,
    hour: values[0] ?? 0,
    minute: values[1] ?? 0,
    second: values[2] ?? 0,
    microsecond,
  });
  for (let i = 0; i < 3; i += 1) {
    if (!isDigit(at(p)) || !isDigit(at(p + 1))) return fail;
    values[i] = Number(at(p) + at(p + 1));
    p += 2;
    const c = at(p);
    p += 1;
    if (i === 0) hasSeparator = c === ':';
    if (p >= end) return finish(c !== '\0' ? 1 : 0);
    if (hasSeparator && c === ':') continue;
    if (c === '.' || c === ',') break;
    if (!hasSeparator) p -= 1;
    else return { ...fail, rv: -4 };
  }
  const toParse = Math.min(end - p, 6);
  const digits = Array.from({ length: toParse }, (_, k) => at(p + k)).join('');
  if (!/^\d*$/.test(digits)) return fail;
  microsecond = Number(digits.padEnd(6, '0'));
  p += toParse;
  while (isDigit(at(p))) p += 1;
  return finish(at(p) !== '\0' ? 1 : 0);
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char.length === 1 && char >= '0' && char <= '9';
}

/** 0 = Monday … 6 = Sunday, for days since 1970-01-01 (a Thursday). */
function isoWeekday(days: number): number {
  return (((days + 3) % 7) + 7) % 7;
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`). */
function civilDays(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
