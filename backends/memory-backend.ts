// The memory-system interface (types only). Every system (graphiti, zep-ce, mem0, mem0-exp, langmem, cognee,
// inspeximus and its -keyed / -hist configurations) implements it; nothing outside backends/ asks which system it is.
import type { Embedder } from './embedder.js';
import type { ExtractionModel } from './extraction-model.js';
import type { MemoryFilter } from './memory-filter.js';

/** Registry id of a memory-system configuration. Open union: new systems need no type change here. */
export type SystemId = 'graphiti' | 'zep-ce' | 'mem0' | 'mem0-exp' | 'langmem' | 'cognee' | (string & {});

/**
 * How policies are inserted (stale-retrieval.md §1):
 * `direct` writes the system's native format and applies its own revocation primitive;
 * `natural` ingests plain episodes and lets the system decide what is revoked.
 */
export type SeedMode = 'direct' | 'natural';

/** A scalar field value as a caller would receive it (datetimes as ISO-8601 strings). */
export type FieldValue = string | number | boolean | null;

/** One result of a read, exactly as the system would hand it to a caller. */
export interface MemoryRecord {
  /** The system's own id (edge uuid, memory id, chunk id). */
  id: string;
  /** The text the agent reads (Graphiti `fact`, mem0 `memory`, langmem `value.content`, a cognee chunk). */
  text: string;
  /**
   * Every metadata field the system exposes to a caller, under the spec's snake_case names
   * (`expired_at`, `invalid_at`, `valid_at`, `created_at`, `expiration_date`, ...). Nothing the system hides
   * (Zep's `invalid_at`) may appear here: the exposure rule and the guard read these fields.
   */
  fields: Record<string, FieldValue>;
}

/** A natural-mode episode (stale-retrieval.md §5). */
export interface Episode {
  /** Episode name, e.g. `{scenario_id}_ep0`. */
  name: string;
  /** Plain text, ingested verbatim. */
  text: string;
  /** World time the episode refers to (ep0: now − 90 d, ep1: now). */
  referenceTime: Date;
  /** Graphiti `source_description`, e.g. `policy feed`. */
  sourceDescription: string;
}

/** What to write. `direct` facts are written natively; `natural` episodes go through the system's ingestion. */
export type MemoryWrites =
  | {
      mode: 'direct';
      /** Facts the harness revokes with the system's own primitive (expiry, delete, never-add). */
      revoked: readonly string[];
      /** Facts that stay current, in seeding order (v2 first, then distractors). */
      current: readonly string[];
      /** Relation name for graph systems (`POLICY`; write-back journals use `DECISION`). */
      relation?: string;
    }
  | { mode: 'natural'; episodes: readonly Episode[] };

/** One insert call into a namespace. */
export interface InsertRequest {
  /** Isolation unit (Graphiti group id, mem0 user id, langmem namespace, cognee dataset). */
  namespace: string;
  /** The clock the write uses; seeding offsets (now − 90 d, now − 1 d) are computed from it. */
  now: Date;
  /** The facts or episodes to write. */
  writes: MemoryWrites;
  /**
   * Writer metadata for every record of this insert (a source label, a signature, a tag), stored where the system
   * keeps caller metadata. A system with no such place still writes the records and reports an `unsupported` warning
   * `write metadata`; it never drops the metadata silently. Absent: none.
   */
  metadata?: Readonly<Record<string, FieldValue>>;
  /**
   * Provenance (taint-carrying write-back, issue #19): the ids of the records in the context these records were
   * derived from (a decision journal's read; `[]` for an empty context). The system stores it through its own write
   * path so that a read with `taint` can trace it. A system without `description.provenance` for this write's mode
   * throws `UnsupportedFeatureError`; it never drops the list. Absent: the records are not derived.
   */
  derivedFrom?: readonly string[];
}

/** What an insert did, for the setup log. */
export interface InsertReport {
  /** Records the system now stores for this insert (after its own revocation primitive ran). */
  stored: number;
  /** Which extractor produced natural-mode records (`none` for direct writes). */
  extractor: string;
  /** Behaviour-changing fallbacks or unsupported settings, recorded rather than dropped. */
  warnings: readonly RecordedWarning[];
}

/** A read request. */
export interface SearchRequest {
  /** The namespace to read. */
  namespace: string;
  /** The query text (the scenario's `query`). */
  query: string;
  /** Number of results (k = 10 in the paper). */
  limit: number;
  /** Absent: the system's default read. Present: must be applied, or `UnsupportedFeatureError` thrown. */
  filter?: MemoryFilter;
  /**
   * Equality conditions on writer metadata (`{verified: true}`), applied by the system's own metadata filter. A system
   * without one throws `UnsupportedFeatureError`, never ignores it. Absent: no condition.
   */
  metadataFilter?: Readonly<Record<string, FieldValue>>;
  /**
   * Resolve provenance on this read (the `taint` defence; backends/provenance.ts): every derived record returned
   * carries `derived_from` and `derived_from_status` (`clean`, `revoked` when a record it derives from, directly or
   * through another derived record, is revoked at read time, `unknown` when its provenance cannot be traced); with
   * `filter` set, `revoked` and `unknown` records are filtered out like revoked ones. A system without
   * `description.provenance` throws `UnsupportedFeatureError`. Absent: provenance is not read.
   */
  taint?: boolean;
}

/** A read result in the system's own ranking order. */
export interface SearchResult {
  /** Ranked records, best first. */
  records: MemoryRecord[];
  /** Anything the read could not honour exactly. */
  warnings: readonly RecordedWarning[];
}

/** `{type: 'unsupported' | 'compatibility', feature}` warnings, kept in the sample record. */
export interface RecordedWarning {
  type: 'unsupported' | 'compatibility' | 'other';
  feature: string;
  message: string;
}

/** Whether a seeding mode can be expressed through this system's API. */
export type ModeSupport = { supported: true } | { supported: false; reason: string };

/** What a system is, as data: read by the pipeline instead of asking for the system's id. */
export interface BackendDescription {
  /** One line on what this configuration models (library, version, read path). */
  summary: string;
  /** Per mode: can it be seeded? An unsupported mode is reported `n/a` with its reason, never as a pass. */
  modes: Record<SeedMode, ModeSupport>;
  /**
   * How exposure is labelled for this system (stale-retrieval.md §7.2): `status` reads a revocation field
   * on the returned record; `lexical` uses the token-overlap rule against v1 / v2; `oracle` asks the
   * backend's measurement-only `revocationOracle` (Zep CE: status the API hides, read from its graph).
   */
  exposure: { rule: 'status'; field: string } | { rule: 'lexical' } | { rule: 'oracle'; fields: readonly string[] };
  /** The system's own filtered read for the `store-filter` arm; `null` when none exists (filtered = default). */
  storeFilter: MemoryFilter | null;
  /** Names of the revocation/status fields that can appear in `MemoryRecord.fields`. */
  statusFields: readonly string[];
  /**
   * False when one namespace's ranking depends on the other namespaces in the store (Neo4j's index-wide BM25
   * statistics): the pipeline then runs this system's units one at a time, each alone in the store, as the
   * paper did (it wiped and reseeded one group per run). Absent = independent.
   */
  independentNamespaces?: boolean;
  /**
   * Taint-carrying write-back (issue #19): per journal write mode, whether an insert can carry `derivedFrom` and a
   * read resolve it (`SearchRequest.taint`). Absent: neither, for any mode.
   */
  provenance?: Record<SeedMode, ModeSupport>;
}

/** A Neo4j server and its credentials. */
export interface Neo4jServer {
  uri: string;
  user: string;
  password: string;
}

/** Where graph systems store their graph: in process (default) or a Neo4j server. */
export type GraphEngineSpec = { id: 'embedded' } | ({ id: 'neo4j' } & Neo4jServer);

/** Where vector systems store their points: in process (default) or a Qdrant server. */
export type VectorEngineSpec = { id: 'embedded' } | { id: 'qdrant'; url: string; apiKey?: string };

/** The storage engines of a run, per role. */
export interface EngineSpec {
  graph: GraphEngineSpec;
  vector: VectorEngineSpec;
}

/** Settings every system factory receives. */
export interface BackendSettings {
  /** The shared embedder. */
  embedder: Embedder;
  /**
   * Prefix that isolates this run's data from every other run on the same engine. `loadBackend` replaces it with
   * `namespaceRoot(runId, nonce)` when a nonce is given, so a system only ever sees the per-process root.
   */
  runId: string;
  /** The eval process's nonce (8 hex digits): every namespace on every engine carries it. Absent: `runId` alone. */
  nonce?: string;
  /** Scratch directory the system may use (file-backed stores); removed by the caller. */
  workDir: string;
  /** The LLM role for natural-mode ingestion (offline: the simulator's deterministic extractor). */
  extraction: ExtractionModel;
  /** Storage engines; absent = embedded for every role. Resolved by the registry, never by systems' callers. */
  engine?: EngineSpec;
  /**
   * The server of NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD in the eval's environment, for systems that always run on
   * Neo4j whatever the graph engine (graphiti-py, the library itself). Absent when NEO4J_URI is unset.
   */
  neo4j?: Neo4jServer;
}

/**
 * A memory system under test. Connecting is explicit (`open`), never in a constructor or at import.
 *
 * @example
 * const backend = createGraphitiBackend({ embedder, runId, workDir });
 * await backend.open();
 * await backend.insert({ namespace, now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 * const { records } = await backend.search({ namespace, query, limit: 10 });
 * await backend.close();
 */
export interface MemoryBackend {
  /** Registry id of this configuration. */
  readonly id: SystemId;
  /** Capabilities and labelling rules as data. */
  readonly description: BackendDescription;
  /** Connects or creates the store. Must be called before any other method. */
  open(): Promise<void>;
  /** Writes facts or episodes through the system's own write path. */
  insert(request: InsertRequest): Promise<InsertReport>;
  /** Reads with the default read path, or with `request.filter` applied. */
  search(request: SearchRequest): Promise<SearchResult>;
  /** Deletes everything in one namespace. */
  reset(namespace: string): Promise<void>;
  /** Releases connections and files. */
  close(): Promise<void>;
  /**
   * Runs `work` (one namespace's seed → read → wipe) while no other process's section runs on the same engine.
   * Present on systems whose ranking depends on everything the engine holds (`independentNamespaces: false`
   * on Neo4j): the pipeline wraps each probe and follow-up unit in it, so concurrent runs on one server get the
   * statistics a lone run gets. Not re-entrant. Absent: the pipeline runs `work` as is.
   */
  exclusive?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Measurement only, never part of what a caller sees: for each record, whether the store itself holds it
   * as revoked. Present only on systems whose API hides status (`exposure.rule === 'oracle'`).
   */
  revocationOracle?(namespace: string, records: readonly MemoryRecord[]): Promise<boolean[]>;
  /**
   * Measurement only, never part of what a caller sees: every record the store holds in a namespace, with
   * whether the store itself holds it as revoked (Graphiti: `expired_at` set). Used for the write-back census
   * (stale-retrieval.md §12 step 4); absent where the system offers no such listing (census `null`).
   */
  listRecords?(namespace: string): Promise<StoredRecord[]>;
  /**
   * Measurement only, an attacker's edit at rest (`--tamper unrevoke`, issue #14 item 3): clears the revocation
   * fields of every revoked record in `namespace` below the system's own code (SQL on its file, the graph engine's
   * property write) and changes nothing else. Absent where the system keeps no status to clear; throws
   * `UnsupportedFeatureError` where this configuration cannot (mem0 on Qdrant).
   */
  unrevoke?(namespace: string): Promise<TamperReport>;
}

/** What an at-rest edit did, for the probe record. */
export interface TamperReport {
  /** The edit (the `T8:unrevoke` variant of the integrity method). */
  edit: 'unrevoke';
  /** Records whose revocation fields were cleared. */
  records: number;
  /** How, in words: the fields and the tooling. */
  how: string;
}

/** A record as the store holds it, for `listRecords`. */
export interface StoredRecord {
  record: MemoryRecord;
  /** The store's own revocation state (expired, invalidated, past its expiration date). */
  revoked: boolean;
}
