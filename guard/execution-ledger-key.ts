// The ledger's HMAC key: checked, generated, or read from STALEBENCH_LEDGER_KEY. It is never stored or logged.
import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '#core/errors.js';

/** The environment variable holding the key as hex (at least 64 hex digits = 32 bytes). */
export const LEDGER_KEY_ENV_VARIABLE = 'STALEBENCH_LEDGER_KEY';

/** Minimum key size in bytes (poem.md §2.1 [DEC]: ≥ 32 random bytes for HMAC-SHA-256). */
const MIN_LEDGER_KEY_BYTES = 32;

/**
 * Checks a key and returns a private copy (the caller may wipe its own). Throws `InvalidInputError` if it is shorter
 * than 32 bytes or all its bytes are equal (an unset or placeholder key, not a random one). Messages never echo key bytes.
 */
export function checkLedgerKey(key: Uint8Array, source = 'ledger key'): Buffer {
  if (key.length < MIN_LEDGER_KEY_BYTES) {
    throw new InvalidInputError(source, [
      { path: 'key', message: `must be at least ${MIN_LEDGER_KEY_BYTES} bytes, got ${key.length}` },
    ]);
  }
  if (key.every((byte) => byte === key[0])) {
    throw new InvalidInputError(source, [
      { path: 'key', message: 'all bytes are equal; use random bytes (generateLedgerKey)' },
    ]);
  }
  return Buffer.from(key);
}

/** Parses a hex key (even length, 0-9 a-f A-F, ≥ 64 digits) and checks it; the message never contains the value. */
export function parseLedgerKey(hex: string, source = 'ledger key'): Buffer {
  const text = hex.trim();
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) {
    throw new InvalidInputError(source, [
      { path: 'key', message: `must be hex digits, an even number of them (got ${text.length} characters)` },
    ]);
  }
  return checkLedgerKey(Buffer.from(text, 'hex'), source);
}

/**
 * Reads the key from `STALEBENCH_LEDGER_KEY` (hex). Returns null when the variable is unset or empty, so the caller
 * decides between failing and `generateLedgerKey()`. Call it where the runtime starts (run.ts), never at import time.
 *
 * @example const key = ledgerKeyFromEnv(process.env) ?? generateLedgerKey();
 */
export function ledgerKeyFromEnv(env: Readonly<Record<string, string | undefined>>): Buffer | null {
  const value = env[LEDGER_KEY_ENV_VARIABLE];
  if (value === undefined || value.trim() === '') return null;
  return parseLedgerKey(value, `environment variable ${LEDGER_KEY_ENV_VARIABLE}`);
}

/** A fresh random 32-byte key, for a run whose ledger only has to live as long as the process. */
export function generateLedgerKey(): Buffer {
  return randomBytes(MIN_LEDGER_KEY_BYTES);
}
