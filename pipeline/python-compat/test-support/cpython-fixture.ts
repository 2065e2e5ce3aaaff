// Test support: reads a CPython vector file of data/fixtures/python-compat/ (tests never run Python themselves).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../data/fixtures/python-compat/', import.meta.url));

/** A fixture: where its vectors come from (`CPython 3.11.7, Unicode 14.0.0`), the script that printed them, and its sections. */
export type CpythonFixture<T> = { source: string; generator: string } & T;

/** Reads `data/fixtures/python-compat/<name>.json`. */
export function readFixture<T>(name: string): CpythonFixture<T> {
  return JSON.parse(readFileSync(`${DIR}${name}.json`, 'utf8')) as CpythonFixture<T>;
}

/** The double whose IEEE-754 bits are the 16 hex digits `hex` (how fixtures carry -0.0, nan and exact values). */
export function doubleFromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

/** The string of the given code points (lone surrogates included). */
export function fromCodePoints(codePoints: readonly number[]): string {
  return codePoints.map((code) => String.fromCodePoint(code)).join('');
}
