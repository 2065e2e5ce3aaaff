// Ledger encoding v1: the canonical MAC input, HMAC-SHA-256, the canonical JSONL line, and subject normalisation.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidInputError } from '#core/errors.js';
import type { LedgerEntry, LedgerEvent, LedgerFailure } from './execution-ledger-types.js';

/** The encoding and line-format version. Changing anything in this file's byte layout means version 2. */
export const LEDGER_ENCODING_VERSION = 1;

/** Domain-separation tag, the first field of every MAC input; it carries the version. */
export const LEDGER_MAC_DOMAIN = 'stalebench/execution-ledger/v1';

/** p_1 for step 0: 32 zero bytes, as hex (poem.md §2.1 [DEC]). */
export const GENESIS_MAC = '0'.repeat(64);

const ACTION_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAC_PATTERN = /^[0-9a-f]{64}$/;
/** Non-empty printable ASCII (`!` … `~`) words, one space between them, none at either end. */
const PLAIN_ASCII = /^[!-~]+(?: [!-~]+)*$/;
const LINE_KEYS = ['v', 'step', 'action', 'subject', 'prev', 'mac'] as const;

/**
 * Subject normalisation v1: Unicode NFC; every run of whitespace (JavaScript `\s`) becomes one space; trim;
 * locale-independent `toLowerCase`; NFC again (lower-casing can un-compose). `' Host  WEB-3 '` → `'host web-3'`.
 * Throws `InvalidInputError` for an empty result or a lone surrogate (UTF-8 could not encode it faithfully).
 */
export function normalizeSubject(subject: string): string {
  // Printable ASCII words separated by single spaces: NFC, whitespace and trim change nothing, so only the case does.
  if (PLAIN_ASCII.test(subject)) return subject.toLowerCase();
  const normalised = subject.normalize('NFC').replace(/\s+/gu, ' ').trim().toLowerCase().normalize('NFC');
  if (normalised === '')
    throw new InvalidInputError('ledger subject', [{ path: 'subject', message: 'is empty after normalisation' }]);
  if (/\p{Cs}/u.test(normalised))
    throw new InvalidInputError('ledger subject', [{ path: 'subject', message: 'contains a lone surrogate' }]);
  return normalised;
}

/** Throws `InvalidInputError` unless `action` is a kebab-case id; actions are compared exactly, never normalised. */
export function checkLedgerAction(action: string): string {
  if (!ACTION_PATTERN.test(action)) {
    throw new InvalidInputError('ledger action', [
      { path: 'action', message: `must be kebab-case letters and digits: ${JSON.stringify(action)}` },
    ]);
  }
  return action;
}

const field = (bytes: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/**
 * The MAC input of encoding v1, unambiguous by construction: each field is a 4-byte big-endian byte length followed
 * by its bytes, except the step, which is a fixed 8-byte big-endian unsigned integer:
 * `field(utf8(LEDGER_MAC_DOMAIN)) ‖ field(utf8(action)) ‖ field(utf8(subject)) ‖ u64be(step) ‖ field(raw 32-byte prev)`.
 */
export function encodeLedgerEvent(event: Pick<LedgerEvent, 'action' | 'subject' | 'step' | 'prev'>): Buffer {
  const step = Buffer.alloc(8);
  step.writeBigUInt64BE(BigInt(event.step));
  return Buffer.concat([
    field(Buffer.from(LEDGER_MAC_DOMAIN, 'utf8')),
    field(Buffer.from(event.action, 'utf8')),
    field(Buffer.from(event.subject, 'utf8')),
    step,
    field(Buffer.from(event.prev, 'hex')),
  ]);
}

/** m_i = HMAC-SHA-256(key, encodeLedgerEvent(...)), as 64 lowercase hex digits. */
export function computeLedgerMac(
  key: Uint8Array,
  event: Pick<LedgerEvent, 'action' | 'subject' | 'step' | 'prev'>,
): string {
  return createHmac('sha256', key).update(encodeLedgerEvent(event)).digest('hex');
}

/** Constant-time comparison of two MACs in hex. */
export function macsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right);
}

/** The canonical line of an event: compact JSON, keys in `LINE_KEYS` order, no trailing newline. */
export function formatLedgerLine(event: LedgerEvent): string {
  const { v, step, action, subject, prev, mac } = event;
  return JSON.stringify({ v, step, action, subject, prev, mac });
}

/** A parsed line, or why it is not a valid v1 line. */
export type ParsedLedgerLine =
  | { event: LedgerEvent }
  | { failure: Extract<LedgerFailure, 'unparseable' | 'unsupported-version'>; reason: string };

/**
 * Parses one line strictly: JSON with exactly the v1 keys and types, a canonical subject, lowercase hex, and
 * byte-identical to `formatLedgerLine` of its content (so no change of spacing, escaping or key order passes).
 */
export function parseLedgerLine(line: string): ParsedLedgerLine {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return { failure: 'unparseable', reason: 'not JSON' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return { failure: 'unparseable', reason: 'not a JSON object' };
  const record = data as Record<string, unknown>;
  if (record.v !== LEDGER_ENCODING_VERSION)
    return { failure: 'unsupported-version', reason: `version ${JSON.stringify(record.v)}` };
  const { step, action, subject, prev, mac } = record;
  const valid =
    Object.keys(record).join() === LINE_KEYS.join() &&
    typeof step === 'number' &&
    Number.isSafeInteger(step) &&
    step >= 0 &&
    typeof action === 'string' &&
    ACTION_PATTERN.test(action) &&
    typeof subject === 'string' &&
    isCanonicalSubject(subject) &&
    typeof prev === 'string' &&
    MAC_PATTERN.test(prev) &&
    typeof mac === 'string' &&
    MAC_PATTERN.test(mac);
  if (!valid) return { failure: 'unparseable', reason: 'not a v1 event (keys, types or formats)' };
  const event: LedgerEvent = { v: 1, step, action, subject, prev, mac };
  if (formatLedgerLine(event) !== line) return { failure: 'unparseable', reason: 'not in canonical form' };
  return { event };
}

/** NaivePoEM's view: every line whose JSON has string `action` and `subject`, bad bytes replaced, nothing verified. */
export function readUnverifiedEntries(bytes: Uint8Array): LedgerEntry[] {
  return new TextDecoder()
    .decode(bytes)
    .split('\n')
    .flatMap((line): LedgerEntry[] => {
      try {
        const data = JSON.parse(line) as { action?: unknown; subject?: unknown } | null;
        return typeof data?.action === 'string' && typeof data.subject === 'string'
          ? [{ action: data.action, subject: data.subject }]
          : [];
      } catch {
        return [];
      }
    });
}

function isCanonicalSubject(subject: string): boolean {
  try {
    return normalizeSubject(subject) === subject;
  } catch {
    return false;
  }
}
