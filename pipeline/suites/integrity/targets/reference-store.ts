// The reference at-rest store (integrity.md §7.5): one HMAC per record over content, context, position, previous tag
// and metadata; a signed head per context; an optional head witness kept off the store. Opening fails closed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../../../backends/store-tools/canonical-json.js';

/** Raised by the read path when the store does not verify; the message names the check that failed. */
export class IntegrityViolationError extends Error {
  override readonly name = 'IntegrityViolationError';
}

/** One stored record (one line of `records.jsonl`). */
export interface ReferenceRecord {
  context: string;
  seq: number;
  content: string;
  labels: Record<string, string>;
  /** Tag of the previous record of the same context; 64 zeros for seq 0. */
  prev: string;
  /** HMAC-SHA-256 over domain, context, seq, content, canonical labels and prev. */
  tag: string;
}

/** A context's head: how many records and the last tag, signed with the key. */
interface Head {
  length: number;
  tag: string;
  sig: string;
}

/** Settings of `openReferenceStore`. */
export interface ReferenceStoreSettings {
  /** The store directory (`records.jsonl`, `head.json`): everything an attacker with the medium holds. */
  dir: string;
  /** HMAC key, ≥ 32 bytes, held only in the process. */
  key: Uint8Array;
  /** A file in another trust domain holding each context's last head; absent = no witness (T9 then passes unseen). */
  witnessPath?: string;
}

const GENESIS = '0'.repeat(64);
const DOMAIN = 'stalebench/reference-store/v1';
const field = (text: string): Buffer => {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};
const mac = (key: Uint8Array, parts: readonly string[]): string =>
  createHmac('sha256', key)
    .update(Buffer.concat(parts.map(field)))
    .digest('hex');
const equalHex = (a: string, b: string): boolean =>
  a.length === b.length && /^[0-9a-f]*$/.test(a) && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
const recordTag = (key: Uint8Array, record: Omit<ReferenceRecord, 'tag'>): string =>
  mac(key, [
    DOMAIN,
    'record',
    record.context,
    String(record.seq),
    record.content,
    canonicalJson(record.labels),
    record.prev,
  ]);
const headSig = (key: Uint8Array, context: string, length: number, tag: string): string =>
  mac(key, [DOMAIN, 'head', context, String(length), tag]);

/** An opened, verified reference store. */
export interface ReferenceStore {
  /** Appends a record to a context, then re-signs the head and advances the witness. */
  append(context: string, content: string, labels: Record<string, string>): void;
  /** The context's records, oldest first, re-verified from the files first (fail closed). */
  read(context: string): ReferenceRecord[];
}

/**
 * Opens the store and verifies all of it: every tag, every chain link and position, every signed head, and the
 * witness when one is configured. Throws `IntegrityViolationError` naming the first failure.
 *
 * @example
 * const store = openReferenceStore({ dir: '/tmp/ref/store', key, witnessPath: '/tmp/ref/witness.json' });
 * store.append('A', 'limit is 300 EUR', { source: 'web' });
 */
export function openReferenceStore(settings: ReferenceStoreSettings): ReferenceStore {
  if (settings.key.length < 32) throw new RangeError('reference store key must be at least 32 bytes');
  mkdirSync(settings.dir, { recursive: true });
  const recordsPath = join(settings.dir, 'records.jsonl');
  const headPath = join(settings.dir, 'head.json');
  let records = verify(settings, recordsPath, headPath);

  return {
    append(context, content, labels) {
      const own = records.filter((record) => record.context === context);
      const unsigned = { context, seq: own.length, content, labels: { ...labels }, prev: own.at(-1)?.tag ?? GENESIS };
      const record: ReferenceRecord = { ...unsigned, tag: recordTag(settings.key, unsigned) };
      records = [...records, record];
      writeFileSync(recordsPath, records.map((line) => `${JSON.stringify(line)}\n`).join(''));
      const heads = headsOf(settings.key, records);
      writeFileSync(headPath, `${JSON.stringify(heads)}\n`);
      if (settings.witnessPath)
        writeFileSync(
          settings.witnessPath,
          `${JSON.stringify(Object.fromEntries(Object.entries(heads).map(([name, head]) => [name, { length: head.length, tag: head.tag }])))}\n`,
        );
    },
    read(context) {
      records = verify(settings, recordsPath, headPath);
      return records.filter((record) => record.context === context);
    },
  };
}

function headsOf(key: Uint8Array, records: readonly ReferenceRecord[]): Record<string, Head> {
  const heads: Record<string, Head> = {};
  for (const record of records)
    heads[record.context] = {
      length: record.seq + 1,
      tag: record.tag,
      sig: headSig(key, record.context, record.seq + 1, record.tag),
    };
  return heads;
}

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new IntegrityViolationError(`${what} is not valid JSON`);
  }
}

function verify(settings: ReferenceStoreSettings, recordsPath: string, headPath: string): ReferenceRecord[] {
  let text = '';
  try {
    text = readFileSync(recordsPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const records = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line, index) => parseRecord(line, index + 1));
  const lastOf = new Map<string, ReferenceRecord>();
  for (const [index, record] of records.entries()) {
    const previous = lastOf.get(record.context);
    if (record.seq !== (previous ? previous.seq + 1 : 0))
      throw new IntegrityViolationError(
        `line ${index + 1}: context ${record.context} position ${record.seq} is out of sequence`,
      );
    if (record.prev !== (previous?.tag ?? GENESIS))
      throw new IntegrityViolationError(`line ${index + 1}: the chain link to the previous record is broken`);
    if (!equalHex(record.tag, recordTag(settings.key, record)))
      throw new IntegrityViolationError(
        `line ${index + 1}: the record's MAC does not verify (content, context, position or metadata changed, or forged)`,
      );
    lastOf.set(record.context, record);
  }
  const heads = (readJson(headPath, 'head.json') ?? {}) as Record<string, Partial<Head>>;
  const names = new Set([...lastOf.keys(), ...Object.keys(heads)]);
  for (const context of names) {
    const head = heads[context];
    const last = lastOf.get(context);
    if (!head || typeof head.length !== 'number' || typeof head.tag !== 'string' || typeof head.sig !== 'string')
      throw new IntegrityViolationError(`context ${context}: no signed head`);
    if (!equalHex(head.sig, headSig(settings.key, context, head.length, head.tag)))
      throw new IntegrityViolationError(`context ${context}: the head's signature does not verify`);
    if (!last || head.length !== last.seq + 1 || head.tag !== last.tag)
      throw new IntegrityViolationError(
        `context ${context}: the signed head (${head.length} records) does not match the stored chain (${last ? last.seq + 1 : 0})`,
      );
  }
  if (settings.witnessPath) checkWitness(settings.witnessPath, heads as Record<string, Head>);
  return records;
}

function checkWitness(path: string, heads: Record<string, Head>): void {
  const witness = (readJson(path, 'the head witness') ?? {}) as Record<string, { length?: number; tag?: string }>;
  for (const [context, seen] of Object.entries(witness)) {
    const head = heads[context];
    if (!head)
      throw new IntegrityViolationError(`context ${context}: the off-store witness holds a head the store does not`);
    if (head.length < (seen.length ?? 0))
      throw new IntegrityViolationError(
        `context ${context}: the store is older than its off-store witness (${head.length} records, witness ${seen.length}): rolled back`,
      );
    if (head.length === seen.length && head.tag !== seen.tag)
      throw new IntegrityViolationError(
        `context ${context}: the head differs from the off-store witness at the same length`,
      );
  }
}

function parseRecord(line: string, at: number): ReferenceRecord {
  let value: Partial<ReferenceRecord>;
  try {
    value = JSON.parse(line) as Partial<ReferenceRecord>;
  } catch {
    throw new IntegrityViolationError(`line ${at}: not JSON`);
  }
  const { context, seq, content, labels, prev, tag } = value;
  const stringLabels =
    labels !== null && typeof labels === 'object' && Object.values(labels).every((label) => typeof label === 'string');
  if (
    typeof context !== 'string' ||
    typeof seq !== 'number' ||
    typeof content !== 'string' ||
    !stringLabels ||
    typeof prev !== 'string' ||
    typeof tag !== 'string'
  ) {
    throw new IntegrityViolationError(`line ${at}: not a reference record`);
  }
  return { context, seq, content, labels: labels as Record<string, string>, prev, tag };
}
