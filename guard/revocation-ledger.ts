// The revocation ledger (issue #14 item 4, issue #19 item 2): what the application wrote and revoked, bound under a
// keyed hash chain whose head is witnessed off the store, and its verdict on each record a read returns.
import { createHash } from 'node:crypto';
import { type ChainLine, type ChainSettings, openRevocationChain } from './revocation-ledger-chain.js';

/** What the ledger says about one retrieved record. */
export interface LedgerVerdict {
  /**
   * `revoked`: the ledger binds a revoke or supersede of it (by id, by content hash, or a revoked sentence it
   * carries); `altered`: the ledger binds other content under its id; `current`: bound as written, never revoked;
   * `unknown`: the ledger never saw it; `broken`: the ledger itself failed verification (nothing it says holds).
   */
  status: 'current' | 'revoked' | 'altered' | 'unknown' | 'broken';
  /** Why, in words (a withheld record's reason). */
  reason: string;
}

/** A record as the application names it: the store's id when it has one, its owner (namespace) and its text. */
export interface LedgerRecordRef {
  id: string | null;
  owner: string;
  text: string;
}

/** A retrieved record to judge, with what the store itself says about its status. */
export interface JudgedRecord {
  id: string;
  text: string;
  /** True/false: the store marks it revoked / serves it as current; null: the store returns no status at all. */
  storeRevoked: boolean | null;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const tokensOf = (text: string): string[] =>
  text
    .normalize('NFC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];
/** The content hash: sha256 of the text's words, lower-cased, one space apart (wrappers and spacing do not count). */
const contentHash = (text: string): string => sha256(tokensOf(text).join(' '));
/**
 * Each sentence of a text as `<hash>:<words>`, so a record that carries one (a chunk, an extracted fact) is found.
 * A bound text is cut finer, at `;` and `:` too: a store may keep a clause of what was written as its own record.
 */
const sentencesOf = (text: string, clauses = false): string[] =>
  text
    .split(clauses ? /(?<=[.!?;:])\s+|\n+/ : /(?<=[.!?])\s+|\n+/)
    .map(tokensOf)
    .filter((tokens) => tokens.length > 0)
    .map((tokens) => `${sha256(tokens.join(' '))}:${tokens.length}`);
/** True when some run of `words` consecutive tokens of `tokens` hashes to `hash`. */
function carries(tokens: readonly string[], hash: string, words: number): boolean {
  for (let start = 0; start + words <= tokens.length; start += 1)
    if (sha256(tokens.slice(start, start + words).join(' ')) === hash) return true;
  return false;
}

type Sentence = { owner: string; hash: string; words: number; line: ChainLine };

interface LedgerIndex {
  bound: Map<string, ChainLine>;
  boundContent: Set<string>;
  boundSentences: Sentence[];
  /** Owners whose records the ledger binds by id: there, an id it never bound is unknown, whatever its content. */
  ownersWithIds: Set<string>;
  revoked: Map<string, ChainLine>;
  revokedSentences: Sentence[];
}

function indexOf(lines: readonly ChainLine[]): LedgerIndex {
  const index: LedgerIndex = {
    bound: new Map(),
    boundContent: new Set(),
    boundSentences: [],
    ownersWithIds: new Set(),
    revoked: new Map(),
    revokedSentences: [],
  };
  for (const line of lines) {
    const { kind, owner = '', id, content } = line.payload as Record<string, string | undefined>;
    const bind = kind === 'bind';
    if (id) (bind ? index.bound : index.revoked).set(`${owner}\u0000id\u0000${id}`, line);
    if (bind) index.boundContent.add(`${owner}\u0000${content}`);
    else index.revoked.set(`${owner}\u0000${content}`, line);
    if (bind && id) index.ownersWithIds.add(owner);
    for (const sentence of (line.payload.sentences as readonly string[] | undefined) ?? []) {
      const [hash = '', words] = sentence.split(':');
      (bind ? index.boundSentences : index.revokedSentences).push({ owner, hash, words: Number(words), line });
    }
  }
  return index;
}

function revokedReason(line: ChainLine, storeRevoked: boolean | null): string {
  const { kind, at } = line.payload as Record<string, string>;
  const transition = `${kind === 'supersede' ? 'supersession' : 'revocation'} at ${at} (entry ${line.seq})`;
  if (storeRevoked === false)
    return `revocation ledger: status not bound: the store serves it as current, the ledger binds its ${transition}`;
  return `revocation ledger: ${kind === 'supersede' ? 'superseded' : 'revoked'} by the application: ${transition}`;
}

/**
 * Opens (or creates) a ledger. Every write appends one chain entry: `bind` (id, owner, content hash, position in its
 * owner) or `revoke` / `supersede` (id, owner, content hash, its sentences, time, what superseded it). `verdicts`
 * re-reads and verifies the whole chain and its witness first, so an edit of the ledger file is seen on the next read.
 *
 * @example
 * const ledger = openRevocationLedger({ path, witnessPath, key });
 * ledger.bind({ id: 'e1', owner: 'ns', text: v1 }, now);
 * ledger.revoke({ id: 'e1', owner: 'ns', text: v1 }, now, { id: 'e2', owner: 'ns', text: v2 });
 * ledger.verdicts('ns', [{ id: 'e1', text: v1, storeRevoked: false }])[0].status; // 'revoked'
 */
export function openRevocationLedger(settings: ChainSettings) {
  const chain = openRevocationChain(settings);
  return {
    /** Binds a record the application wrote (or the store derived from its write). */
    bind(record: LedgerRecordRef, at: Date): void {
      const state = chain.read();
      if (!state.ok) throw new Error(`revocation ledger ${settings.path}: ${state.reason}`);
      const position = state.lines.filter((l) => l.payload.kind === 'bind' && l.payload.owner === record.owner).length;
      chain.append({
        kind: 'bind',
        id: record.id,
        owner: record.owner,
        content: contentHash(record.text),
        sentences: sentencesOf(record.text, true),
        position,
        at: at.toISOString(),
      });
    },
    /** Binds a status transition the application performed: a revoke, or a supersede when `by` is given. */
    revoke(record: LedgerRecordRef, at: Date, by: LedgerRecordRef | null = null): void {
      chain.append({
        kind: by ? 'supersede' : 'revoke',
        id: record.id,
        owner: record.owner,
        content: contentHash(record.text),
        sentences: sentencesOf(record.text),
        at: at.toISOString(),
        by_id: by?.id ?? null,
        by_content: by ? contentHash(by.text) : null,
      });
    },
    /** The chain's own check: entries, and any crash it repaired; or why it is broken. */
    check: () => {
      const state = chain.read();
      return state.ok ? { ok: true as const, entries: state.lines.length, repaired: state.repaired } : state;
    },
    /** Ids the ledger binds in `owner` as written and never revoked: what a complete read of it must serve. */
    expectedIds(owner: string): string[] {
      const state = chain.read();
      if (!state.ok) return [];
      const index = indexOf(state.lines);
      const prefix = `${owner}\u0000id\u0000`;
      return [...index.bound.entries()]
        .filter(
          ([key, line]) =>
            key.startsWith(prefix) &&
            !index.revoked.has(key) &&
            !index.revoked.has(`${owner}\u0000${line.payload.content}`),
        )
        .map(([key]) => key.slice(prefix.length));
    },
    /** One verdict per record of `owner`, in order. */
    verdicts(owner: string, records: readonly JudgedRecord[]): LedgerVerdict[] {
      const state = chain.read();
      if (!state.ok)
        return records.map(() => ({
          status: 'broken',
          reason: `revocation ledger failed verification: ${state.reason}`,
        }));
      const index = indexOf(state.lines);
      return records.map((record): LedgerVerdict => {
        const tokens = tokensOf(record.text);
        const content = sha256(tokens.join(' '));
        const byId = `${owner}\u0000id\u0000${record.id}`;
        const carried = (sentences: readonly Sentence[]) =>
          sentences.find((s) => s.owner === owner && carries(tokens, s.hash, s.words))?.line;
        const revoked =
          index.revoked.get(byId) ?? index.revoked.get(`${owner}\u0000${content}`) ?? carried(index.revokedSentences);
        if (revoked) return { status: 'revoked', reason: revokedReason(revoked, record.storeRevoked) };
        const bound = index.bound.get(byId);
        if (bound && bound.payload.content !== content)
          return {
            status: 'altered',
            reason: `revocation ledger: content not bound: the ledger binds other content for ${record.id} (entry ${bound.seq})`,
          };
        const byContent = !index.ownersWithIds.has(owner);
        if (
          bound ||
          (byContent && (index.boundContent.has(`${owner}\u0000${content}`) || carried(index.boundSentences)))
        )
          return { status: 'current', reason: 'revocation ledger: bound as written, never revoked' };
        return { status: 'unknown', reason: 'revocation ledger: never bound (not written through the ledger client)' };
      });
    },
  };
}

/** An open revocation ledger. */
export type RevocationLedger = ReturnType<typeof openRevocationLedger>;
