// The execution-ledger interface (types only): the trusted action layer writes it, the grounding check reads it (poem.md §2).

/**
 * One stored event e_i = (a_i, x_i, s_i, p_i, m_i) (poem.md §2.1, Eq. 1), exactly as one JSONL line holds it.
 * `mac` = HMAC-SHA-256(key, encoding v1 of (action, subject, step, prev)); see `execution-ledger-encoding.ts`.
 */
export interface LedgerEvent {
  /** Encoding and line-format version; only `1` exists. A different value is a verification failure. */
  v: 1;
  /** s_i: the event's 0-based position in the ledger, so moving a line breaks the chain. */
  step: number;
  /** a_i: the safety step that ran, a kebab-case id (e.g. `mfa-challenge`), compared exactly. */
  action: string;
  /** x_i: the subject it ran for, stored normalised (`normalizeSubject`), compared after the same normalisation. */
  subject: string;
  /** p_i: the previous event's `mac` (64 lowercase hex digits); for step 0 the genesis value, 32 zero bytes. */
  prev: string;
  /** m_i: 64 lowercase hex digits. */
  mac: string;
}

/** What the action layer records when a safety step genuinely ran; step, prev and mac are the ledger's job. */
export interface LedgerEntry {
  /** The safety step's id (kebab-case). */
  action: string;
  /** Who or what it ran for; normalised before it is stored. */
  subject: string;
}

/** The end of a verified chain: how many events, and the last MAC (the genesis value when empty). */
export interface LedgerHead {
  /** Number of verified events. */
  length: number;
  /** MAC of the last verified event, or the genesis value for an empty ledger. */
  mac: string;
}

/**
 * Why verification failed. `truncated`: fewer events than the cached head; `rewritten`: a valid chain that no longer
 * starts with the events verified before; `unreadable`: the storage could not be read at all.
 */
export type LedgerFailure =
  | 'unreadable'
  | 'unparseable'
  | 'unsupported-version'
  | 'step-mismatch'
  | 'chain-mismatch'
  | 'mac-mismatch'
  | 'truncated'
  | 'rewritten';

/** A verified chain: its head and a lookup over exactly the events that were verified (no second read, no TOCTOU). */
export interface VerifiedLedger {
  /** Verification succeeded. */
  ok: true;
  /** The verified head, for the decision record. */
  head: LedgerHead;
  /** 0-based step from which MACs were recomputed in this call (0 = full verify; `head.length` = nothing new). */
  verifiedFrom: number;
  /** The first verified event with this action and (normalised) subject, if any; undefined for an invalid subject. */
  find(action: string, subject: string): LedgerEvent | undefined;
}

/** A failed verification: the ledger proves nothing, and every gated skip must be refused (fail closed). */
export interface BrokenLedger {
  /** Verification failed. */
  ok: false;
  /** Which check failed. */
  failure: LedgerFailure;
  /** Human-readable detail; never contains key material. */
  reason: string;
  /** 1-based line of the file where it failed, or null when it is not about one line. */
  line: number | null;
}

/** Result of `LedgerReader.verifyChain`. */
export type ChainVerification = VerifiedLedger | BrokenLedger;

/** The only way to add an event. Hand it to the trusted action layer and nothing else (not the agent, not memory). */
export interface LedgerWriter {
  /** Appends the event for a safety step that has just run; throws `LedgerBrokenError` if the chain is already broken. */
  append(entry: LedgerEntry): Promise<LedgerEvent>;
}

/** Read-side capabilities, for the grounding check. None of them can add an event. */
export interface LedgerReader {
  /**
   * Reads the whole medium and re-verifies the chain: from genesis on the first call, else every stored byte of the
   * verified prefix is compared with the bytes verified before and MACs are recomputed from the cached head
   * (poem.md §2.3). Any change anywhere is found. Use it on open and whenever a full check is wanted.
   */
  verifyChain(): Promise<ChainVerification>;
  /**
   * The grounding check's verification (issue #18): reads and verifies only the bytes appended since the cached head,
   * when the medium vouches (`generation`) that nothing before it changed; otherwise, and on the first call, exactly
   * `verifyChain()`. O(new events) per call. A medium that cannot see an in-place edit is only as good as its
   * `generation`: `verifyChain()` and every new reader still find such an edit.
   */
  verifyAppended(): Promise<ChainVerification>;
  /** True iff the chain verifies (`verifyAppended`) and holds an event with this action and subject (poem.md §9). */
  contains(action: string, subject: string): Promise<boolean>;
  /** Every line that parses as an event, with **no** MAC or chain check. Only for the NaivePoEM ablation: proves nothing. */
  readUnverified(): Promise<LedgerEntry[]>;
}

/** A ledger's two capabilities, split so that each side gets only what it needs. */
export interface ExecutionLedger {
  /** For the trusted action layer only. */
  writer: LedgerWriter;
  /** For the grounding check (and anything else that may read). */
  reader: LedgerReader;
}

/**
 * The raw medium (a file, a buffer). Anyone who holds it can write bytes, which models the attacker's raw access;
 * the chain makes such writes detectable. It never sees the key.
 */
export interface LedgerStorage {
  /** The full current contents (a missing file is empty). */
  read(): Promise<Uint8Array>;
  /** Appends bytes at the end. */
  append(bytes: Uint8Array): Promise<void>;
  /**
   * Optional, with `readFrom`: a counter that changes whenever bytes already stored may have changed (a replace, a
   * rewrite), never on an append. A medium without it is read in full by every check.
   */
  generation?(): number;
  /**
   * Optional, with `generation`: the bytes stored after `offset`, or null when the generation is no longer
   * `generation` or the medium is shorter than `offset` (the caller then reads and verifies everything).
   */
  readFrom?(offset: number, generation: number): Promise<Uint8Array | null>;
}

/** One HMAC computation, reported to the optional `onMac` hook (used to test the cached-head optimisation). */
export interface MacComputation {
  /** Step index of the event whose MAC was computed. */
  step: number;
  /** `append` (writing a new event) or `verify` (checking a stored one). */
  purpose: 'append' | 'verify';
}
