// τ of the time strings backends usually write, read straight from their characters (no cache lookup, no parse).

/** Seconds in a day. */
const DAY = 86_400;

/** The value of the two decimal digits at `at`, or −1 when either is not an ASCII digit. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - 48;
  const ones = text.charCodeAt(at + 1) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return (
    era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468
  );
}

/** Days in `month` of `year` (proleptic Gregorian). */
function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/**
 * τ (epoch seconds) of a time string in one of the shapes backends write, or `undefined` for any other string (then
 * the full CPython-exact parse decides). Accepted: `YYYY-MM-DD`, optionally `THH:MM:SS`, optionally `.000` or
 * `.000000`, optionally `Z` or `+00:00`; year 2 to 9999. These have a whole number of seconds and no offset, so a naive
 * value's `timestamp()` (read as UTC, §10.11.7) and an aware one's are both that integer: what
 * `pythonTimestamp(parseIsoInstant(value.replaceAll('Z', '+00:00')))` returns (`iso-timestamp.test.ts` checks it).
 */
export function isoTimestamp(text: string): number | undefined {
  const length = text.length;
  if (length !== 10 && length < 19) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined;
  const century = twoDigits(text, 0);
  const yearOfCentury = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  if (century < 0 || yearOfCentury < 0 || month < 1 || month > 12 || day < 1) return undefined;
  const year = century * 100 + yearOfCentury;
  if (year < 2 || day > daysInMonth(year, month)) return undefined;
  const date = daysFromCivil(year, month, day) * DAY;
  if (length === 10) return date;
  if (text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  // After the seconds: an optional all-zero fraction of 3 or 6 digits, then nothing, `Z` or `+00:00`.
  let at = 19;
  if (at < length && text.charCodeAt(at) === 46) {
    let zeros = 0;
    while (at + 1 + zeros < length && text.charCodeAt(at + 1 + zeros) === 48) zeros += 1;
    if (zeros !== 3 && zeros !== 6) return undefined;
    at += 1 + zeros;
  }
  const rest = length - at;
  if (rest === 1 && text.charCodeAt(at) !== 90) return undefined;
  if (rest === 6 && !text.endsWith('+00:00')) return undefined;
  if (rest !== 0 && rest !== 1 && rest !== 6) return undefined;
  return date + hour * 3600 + minute * 60 + second;
}
