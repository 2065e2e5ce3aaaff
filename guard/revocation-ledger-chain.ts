// The revocation ledger's medium: an append-only JSON-lines file under a keyed hash chain, its head witnessed in a
// second file kept off the store (issue #14 item 4, issue #19 item 2). Knows nothing of records or matching.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, truncateSync, writeSync } from 'node:fs';
import { canonicalJson } from '../backends/store-tools/canonical-json.js';
import { checkLedgerKey } from './execution-ledger-key.js';

/** Domain of every MAC: line MACs and the witness MAC never verify as one another, nor as execution-ledger MACs. */
const DOMAIN = 'stalebench/revocation-ledger/v1';
const GENESIS = '0'.repeat(64);

/** One entry's payload: what the ledger binds (a record written, a status transition); plain JSON. */
export type ChainPayload = { readonly [field: string]: string | number | boolean | null | readonly string[] };

/** A verified line of the chain. */
export interface ChainLine {
  /** 0-based position in the chain. */
  seq: number;
  payload: ChainPayload;
  /** This line's MAC (hex): HMAC over the domain, seq, payload and the previous line's MAC. */
  mac: string;
}

/** The chain as read and verified, or why it cannot be trusted. */
export type ChainState = { ok: true; lines: ChainLine[]; repaired: string | null } | { ok: false; reason: string };

/** Where the chain and its witness live, and the key (held in memory only, never written). */
export interface ChainSettings {
  /** The JSON-lines chain (the application's ledger file). */
  path: string;
  /** The head witness: `{length, head, mac}`, a separate file given at construction, off the store. */
  witnessPath: string;
  /** HMAC-SHA-256 key, ≥ 32 random bytes. */
  key: Uint8Array;
}

const hmac = (key: Buffer, ...parts: string[]): string => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(`${Buffer.byteLength(part)}:${part}`);
  return mac.digest('hex');
};
const sameHex = (a: string, b: string): boolean =>
  a.length === b.length && /^[0-9a-f]+$/.test(a) && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
const lineMac = (key: Buffer, seq: number, payload: ChainPayload, prev: string) =>
  hmac(key, DOMAIN, 'line', String(seq), canonicalJson(payload), prev);
const witnessMac = (key: Buffer, length: number, head: string) => hmac(key, DOMAIN, 'witness', String(length), head);

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes `text` to `path` through a temporary file and a rename, so a crash leaves the old or the new witness. */
function writeAtomic(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

/**
 * An append-only keyed hash chain with an off-store head witness. `read()` verifies every line (its MAC, its seq, its
 * link to the previous MAC) and the witness (its MAC, length and head); a crash between a line and its witness is the
 * one state it repairs: a torn last line is cut off, and one complete valid line past the witness (only the key's
 * holder can write one) is witnessed. Anything else fails closed with the reason.
 *
 * @example
 * const chain = openRevocationChain({ path: 'ledger.jsonl', witnessPath: '/elsewhere/head.json', key });
 * chain.append({ kind: 'bind', id: 'e1' });
 * chain.read(); // { ok: true, lines: [...] }
 */
export function openRevocationChain(settings: ChainSettings) {
  const key = checkLedgerKey(settings.key, 'revocation ledger key');
  const read = (): ChainState => {
    const text = readText(settings.path) ?? '';
    const raw = text.split('\n');
    const tail = raw.pop() ?? ''; // '' after the final newline; anything else is a torn last line
    const lines: ChainLine[] = [];
    let prev = GENESIS;
    for (const [index, line] of raw.entries()) {
      let parsed: { seq?: unknown; payload?: unknown; prev?: unknown; mac?: unknown };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        return { ok: false, reason: `line ${index + 1} of the ledger is not JSON` };
      }
      const payload = parsed.payload as ChainPayload;
      if (parsed.seq !== index || parsed.prev !== prev || typeof parsed.mac !== 'string')
        return { ok: false, reason: `line ${index + 1} of the ledger is out of sequence (moved, removed or replayed)` };
      if (!sameHex(parsed.mac, lineMac(key, index, payload, prev)))
        return { ok: false, reason: `line ${index + 1} of the ledger fails its MAC (edited)` };
      lines.push({ seq: index, payload, mac: parsed.mac });
      prev = parsed.mac;
    }
    const witnessText = readText(settings.witnessPath);
    let witnessed = { length: 0, head: GENESIS, mac: witnessMac(key, 0, GENESIS) };
    try {
      if (witnessText !== null) witnessed = JSON.parse(witnessText) as typeof witnessed;
    } catch {
      return { ok: false, reason: 'the head witness is not JSON' };
    }
    if (
      !Number.isSafeInteger(witnessed.length) ||
      typeof witnessed.head !== 'string' ||
      typeof witnessed.mac !== 'string' ||
      !sameHex(witnessed.mac, witnessMac(key, witnessed.length, witnessed.head))
    )
      return { ok: false, reason: 'the head witness fails its MAC' };
    let repaired: string | null = null;
    if (tail !== '') {
      truncateSync(settings.path, Buffer.byteLength(text) - Buffer.byteLength(tail));
      repaired = 'a torn last line (a crash mid-append) was cut off';
    }
    if (lines.length === witnessed.length + 1) {
      writeAtomic(
        settings.witnessPath,
        JSON.stringify({ length: lines.length, head: prev, mac: witnessMac(key, lines.length, prev) }),
      );
      repaired = 'one complete line past the witness (a crash before the witness was written) was witnessed';
    } else if (lines.length !== witnessed.length || (lines.length > 0 && lines.at(-1)?.mac !== witnessed.head))
      return {
        ok: false,
        reason: `the ledger holds ${lines.length} entries but its off-store witness binds ${witnessed.length} (truncated, rolled back or replaced)`,
      };
    return { ok: true, lines, repaired };
  };
  return {
    read,
    /** Appends one payload after verifying the chain (throws when it is broken); returns the new line. */
    append(payload: ChainPayload): ChainLine {
      const state = read();
      if (!state.ok) throw new Error(`revocation ledger ${settings.path}: ${state.reason}`);
      const seq = state.lines.length;
      const prev = state.lines.at(-1)?.mac ?? GENESIS;
      const mac = lineMac(key, seq, payload, prev);
      const fd = openSync(settings.path, 'a');
      try {
        writeSync(fd, `${JSON.stringify({ seq, payload, prev, mac })}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      writeAtomic(
        settings.witnessPath,
        JSON.stringify({ length: seq + 1, head: mac, mac: witnessMac(key, seq + 1, mac) }),
      );
      return { seq, payload, mac };
    },
  };
}
