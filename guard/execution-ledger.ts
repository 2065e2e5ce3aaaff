// The execution ledger (poem.md §2.1, §2.3): an HMAC-SHA-256 chain, split into a writer and a reader, with a cached head.
import { EvalError, InvalidInputError } from '#core/errors.js';
import {
  checkLedgerAction,
  computeLedgerMac,
  formatLedgerLine,
  GENESIS_MAC,
  macsEqual,
  normalizeSubject,
  parseLedgerLine,
  readUnverifiedEntries,
} from './execution-ledger-encoding.js';
import { checkLedgerKey } from './execution-ledger-key.js';
import { createFileLedgerStorage, createMemoryLedgerStorage } from './execution-ledger-storage.js';
import type {
  BrokenLedger,
  ChainVerification,
  ExecutionLedger,
  LedgerEntry,
  LedgerEvent,
  LedgerFailure,
  LedgerHead,
  LedgerStorage,
  MacComputation,
  VerifiedLedger,
} from './execution-ledger-types.js';

/** Settings of `createExecutionLedger`. */
export interface ExecutionLedgerSettings {
  /** HMAC key, ≥ 32 random bytes (`ledgerKeyFromEnv`, `generateLedgerKey`). Copied; never written anywhere. */
  key: Uint8Array;
  /** A JSONL file to keep the ledger in. Give `path` or `storage`, not both; neither keeps it in memory. */
  path?: string;
  /** A raw medium of your own (e.g. `createMemoryLedgerStorage()` to simulate attacks on its bytes). */
  storage?: LedgerStorage;
  /** Called before every HMAC computation; lets tests count the work the cached head saves. */
  onMac?: (computation: MacComputation) => void;
}

/** The writer refused to append because the stored chain does not verify (the step still ran; no skip will be allowed). */
export class LedgerBrokenError extends EvalError {
  readonly failure: LedgerFailure;
  readonly line: number | null;
  constructor(broken: BrokenLedger) {
    super('ledger-broken', `execution ledger failed verification (${broken.failure}): ${broken.reason}`);
    this.failure = broken.failure;
    this.line = broken.line;
  }
}

/** What trusted memory keeps about the last verified chain: its exact bytes (to see a changed prefix), events, index. */
interface VerifiedState {
  /** The verified bytes, in a buffer with spare room (capacity doubles, so appending is amortised O(1)). */
  bytes: Buffer;
  size: number;
  events: LedgerEvent[];
  /** The first event of each subject, by action then normalised subject (no key string built per lookup). */
  index: Map<string, Map<string, LedgerEvent>>;
  /** The medium's generation when these bytes were read, or null when it has none (every check reads it all). */
  generation: number | null;
}

/** The first verified event for (action, normalised subject) among the first `length` events, if any. */
const lookUp = (current: VerifiedState, length: number, action: string, subject: string): LedgerEvent | undefined => {
  const event = current.index.get(action)?.get(subject);
  return event && event.step < length ? event : undefined;
};
const broken = (failure: LedgerFailure, reason: string, line: number | null): BrokenLedger => ({
  ok: false,
  failure,
  reason,
  line,
});

/**
 * Creates an execution ledger and returns its two capabilities. Give `writer` to the trusted action layer only
 * (it appends exactly when a safety step really ran) and `reader` to the grounding check; the agent and its memory
 * get neither. Verification recomputes every MAC from genesis on the first call, then only for events appended since
 * the cached head, as long as the stored bytes still start with the bytes verified before (poem.md §2.3 [DEC]);
 * `verifyAppended` (the grounding check's) reads only those appended bytes when the medium vouches for the rest.
 * Throws `InvalidInputError` for a bad key or for both `path` and `storage`.
 *
 * @example
 * const { writer, reader } = createExecutionLedger({ key: ledgerKeyFromEnv(process.env) ?? generateLedgerKey(), path });
 * await writer.append({ action: 'mfa-challenge', subject: 'user:alice' }); // in the action layer, after the challenge passed
 * await reader.contains('mfa-challenge', 'User:Alice'); // → true
 */
export function createExecutionLedger(settings: ExecutionLedgerSettings): ExecutionLedger {
  if (settings.path !== undefined && settings.storage !== undefined) {
    throw new InvalidInputError('execution ledger settings', [
      { path: 'storage', message: 'give either path or storage, not both' },
    ]);
  }
  const key = checkLedgerKey(settings.key);
  const storage =
    settings.storage ??
    (settings.path !== undefined ? createFileLedgerStorage(settings.path) : createMemoryLedgerStorage());
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let state: VerifiedState | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let pending = 0;
  const release = () => {
    pending -= 1;
  };
  // One task at a time, in call order; with none pending the task starts at once (no extra turn of the queue).
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = pending === 0 ? task() : queue.then(task, task);
    pending += 1;
    queue = run.then(release, release);
    return run;
  };

  const headOf = (current: VerifiedState): LedgerHead => ({
    length: current.events.length,
    mac: current.events.at(-1)?.mac ?? GENESIS_MAC,
  });
  /** Copies `bytes` after the verified ones, doubling the buffer when it is full. */
  const extend = (current: VerifiedState, bytes: Uint8Array): void => {
    if (current.bytes.length - current.size < bytes.length) {
      const grown = Buffer.alloc(Math.max(current.bytes.length * 2, current.size + bytes.length, 4096));
      current.bytes.copy(grown, 0, 0, current.size);
      current.bytes = grown;
    }
    current.bytes.set(bytes, current.size);
    current.size += bytes.length;
  };
  const generationOf = (): number | null => (storage.generation && storage.readFrom ? storage.generation() : null);
  const add = (current: VerifiedState, event: LedgerEvent): void => {
    current.events.push(event);
    const subjects = current.index.get(event.action);
    if (!subjects) current.index.set(event.action, new Map([[event.subject, event]]));
    else if (!subjects.has(event.subject)) subjects.set(event.subject, event);
  };

  /** Checks the lines stored after `offset`, continuing the chain from `start`. */
  function scan(stored: Buffer, offset: number, start: LedgerHead): { ok: true; events: LedgerEvent[] } | BrokenLedger {
    let text: string;
    try {
      text = decoder.decode(stored.subarray(offset));
    } catch {
      return broken('unparseable', 'the bytes are not valid UTF-8', null);
    }
    const lines = text.split('\n');
    const unterminated = lines.pop();
    const events: LedgerEvent[] = [];
    let prev = start.mac;
    for (const [position, line] of lines.entries()) {
      const step = start.length + position;
      const at = step + 1;
      const parsed = parseLedgerLine(line);
      if ('failure' in parsed) return broken(parsed.failure, `line ${at}: ${parsed.reason}`, at);
      const { event } = parsed;
      if (event.step !== step)
        return broken('step-mismatch', `line ${at}: step ${event.step} stored at position ${step}`, at);
      if (event.prev !== prev)
        return broken('chain-mismatch', `line ${at}: prev is not the MAC of the event before`, at);
      settings.onMac?.({ step, purpose: 'verify' });
      if (!macsEqual(event.mac, computeLedgerMac(key, event)))
        return broken('mac-mismatch', `line ${at}: the MAC does not verify`, at);
      events.push(event);
      prev = event.mac;
    }
    if (unterminated !== '') {
      const at = start.length + lines.length + 1;
      return broken('unparseable', `line ${at}: not terminated by a newline (a cut or partial write)`, at);
    }
    return { ok: true, events };
  }

  function verified(current: VerifiedState, verifiedFrom: number): VerifiedLedger {
    const head = headOf(current);
    return {
      ok: true,
      head,
      verifiedFrom,
      find(action, subject) {
        let normalised: string;
        try {
          normalised = normalizeSubject(subject);
        } catch {
          return undefined;
        }
        return lookUp(current, head.length, action, normalised); // only what this call verified
      },
    };
  }

  /** `verifyAppended`: the tail after the cached head when the medium vouches for the prefix, else `verify`. */
  async function verifyTail(): Promise<ChainVerification> {
    const cached = state;
    if (!cached || cached.generation === null || !storage.readFrom) return verify();
    let tail: Uint8Array | null;
    try {
      tail = await storage.readFrom(cached.size, cached.generation);
    } catch (error) {
      return broken('unreadable', `cannot read the ledger: ${(error as Error).message}`, null);
    }
    if (tail === null) return verify();
    const head = headOf(cached);
    if (tail.length === 0) return verified(cached, head.length);
    const scanned = scan(Buffer.from(tail.buffer, tail.byteOffset, tail.length), 0, head);
    if (!scanned.ok) return scanned;
    for (const event of scanned.events) add(cached, event);
    extend(cached, tail);
    return verified(cached, head.length);
  }

  async function verify(): Promise<ChainVerification> {
    let stored: Buffer;
    const generation = generationOf(); // taken before the read: a replace in between only forces another full read
    try {
      stored = Buffer.from(await storage.read());
    } catch (error) {
      return broken('unreadable', `cannot read the ledger: ${(error as Error).message}`, null);
    }
    const cached = state;
    if (
      cached &&
      stored.length >= cached.size &&
      stored.subarray(0, cached.size).equals(cached.bytes.subarray(0, cached.size))
    ) {
      const head = headOf(cached);
      const scanned = scan(stored, cached.size, head);
      if (!scanned.ok) return scanned;
      for (const event of scanned.events) add(cached, event);
      extend(cached, stored.subarray(cached.size));
      cached.generation = generation;
      return verified(cached, head.length);
    }
    const scanned = scan(stored, 0, { length: 0, mac: GENESIS_MAC });
    if (!scanned.ok) return scanned;
    if (cached) {
      const known = cached.events.length;
      if (scanned.events.length < known)
        return broken('truncated', `${scanned.events.length} events stored, ${known} verified before`, null);
      if (scanned.events[known - 1]?.mac !== cached.events[known - 1]?.mac) {
        return broken(
          'rewritten',
          `a valid chain, but not the one verified before (it differs within the first ${known} events)`,
          null,
        );
      }
    }
    const fresh: VerifiedState = { bytes: stored, size: stored.length, events: [], index: new Map(), generation };
    for (const event of scanned.events) add(fresh, event);
    state = fresh;
    return verified(fresh, 0);
  }

  /** The writer trusts its own cached head: it appends without re-reading, so one writer per ledger. */
  async function append(entry: LedgerEntry): Promise<LedgerEvent> {
    const action = checkLedgerAction(entry.action);
    const subject = normalizeSubject(entry.subject);
    if (!state) {
      const result = await verify();
      if (!result.ok) throw new LedgerBrokenError(result);
    }
    const current = state;
    if (!current) throw new Error('unreachable: a successful verify sets the cached head');
    const head = headOf(current);
    const unsigned = { action, subject, step: head.length, prev: head.mac };
    settings.onMac?.({ step: head.length, purpose: 'append' });
    const event: LedgerEvent = { v: 1, ...unsigned, mac: computeLedgerMac(key, unsigned) };
    const bytes = Buffer.from(`${formatLedgerLine(event)}\n`, 'utf8');
    await storage.append(bytes);
    extend(current, bytes);
    add(current, event);
    return event;
  }

  return {
    writer: { append: (entry) => exclusive(() => append(entry)) },
    reader: {
      verifyChain: () => exclusive(verify),
      verifyAppended: () => exclusive(verifyTail),
      async contains(action, subject) {
        const result = await exclusive(verifyTail);
        return result.ok && result.find(action, subject) !== undefined;
      },
      readUnverified: async () => readUnverifiedEntries(await storage.read()),
    },
  };
}
