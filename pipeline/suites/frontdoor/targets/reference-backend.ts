// The front door's reference stores (models, labelled so): `reference` has no defences; `reference-defended` verifies
// signatures and quarantines instruction-shaped records at write time, and drops stuffed records at read time.
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import type {
  FieldValue,
  InsertReport,
  MemoryBackend,
  MemoryRecord,
  RecordedWarning,
  SearchRequest,
} from '../../../../backends/memory-backend.js';
import { SOURCE_FIELD, verifyWrite } from './provenance.js';
import {
  contentWords,
  instructionShape,
  stuffedByShare,
  stuffedFor,
} from '../../../../backends/store-tools/text-checks.js';

/** The defences of `reference-defended`. */
export interface ReferenceDefences {
  /** SPKI PEM public keys whose signatures make a `user`-labelled write genuine (the agent's key). */
  trustedKeys: readonly string[];
  /**
   * The read-time stuffing check: `query-words` (a record holding every content word of the query is dropped; the
   * shipped check) or `share` (the older share-of-words threshold that dilution walks under; kept to show the hole).
   */
  stuffingCheck?: 'query-words' | 'share';
}

/** Settings of the reference stores. */
export interface ReferenceSettings {
  /** Absent: the undefended `reference`. Present: `reference-defended`. */
  defences?: ReferenceDefences;
}

interface Item {
  id: string;
  text: string;
  metadata: Readonly<Record<string, FieldValue>>;
}

/** A write the defended store refused to serve, and why (kept for the report, never returned by search). */
export interface QuarantinedWrite {
  namespace: string;
  text: string;
  reason: string;
}

/** The reference store plus its quarantine log (inspection only). */
export interface ReferenceBackend extends MemoryBackend {
  /** Writes refused at write time, oldest first. */
  quarantined(): readonly QuarantinedWrite[];
}

const TF_CAP = 3;

/**
 * Creates `reference` (no `defences`) or `reference-defended`. Both keep records per namespace (isolation by
 * namespace, as LangGraph's store and Letta's archives), store writer metadata, filter on it by equality, and rank by
 * their own lexical score (each distinct query content word counts its occurrences, at most three) with no floor.
 * The defended store serves a write only when it is labelled `user` and its signature verifies under a trusted key
 * and it is not instruction-shaped; at read time it drops any record stuffed with the query's words.
 *
 * @example
 * const store = createReferenceBackend({ defences: { trustedKeys: [agent.publicKeyPem] } });
 * await store.open();
 * await store.insert({ namespace: 'u1', now, writes: { mode: 'direct', revoked: [], current: [text] }, metadata });
 */
export function createReferenceBackend(settings: ReferenceSettings = {}): ReferenceBackend {
  const { defences } = settings;
  const id = defences ? 'reference-defended' : 'reference';
  const namespaces = new Map<string, Item[]>();
  const quarantine: QuarantinedWrite[] = [];
  let sequence = 0;
  let opened = false;

  const itemsOf = (namespace: string): Item[] => {
    if (!opened) throw new EvalError('backend-not-open', `${id}: call open() before using the backend`);
    let items = namespaces.get(namespace);
    if (!items) {
      items = [];
      namespaces.set(namespace, items);
    }
    return items;
  };
  const refusal = (namespace: string, text: string, metadata: Item['metadata']): string | null => {
    if (!defences) return null;
    if (metadata[SOURCE_FIELD] !== 'user')
      return `source label ${JSON.stringify(metadata[SOURCE_FIELD] ?? null)} is not user`;
    if (!verifyWrite(defences.trustedKeys, namespace, text, metadata))
      return 'signature missing or not by a trusted key';
    const shape = instructionShape(text);
    return shape === null ? null : `instruction-shaped (${shape})`;
  };
  const stuffed = (text: string, query: string): boolean =>
    defences !== undefined &&
    (defences.stuffingCheck === 'share' ? stuffedByShare(text, query) : stuffedFor(text, query));

  return {
    id,
    description: {
      summary: defences
        ? `reference-defended (model): per-namespace store; write time: source label user + Ed25519 signature by a trusted key, instruction-shaped records quarantined; read time: ${defences.stuffingCheck === 'share' ? 'share-of-query-words stuffing threshold (the old check)' : 'query-word stuffing check'}; lexical ranking, no floor`
        : 'reference (model): per-namespace store, writer metadata kept and filterable, lexical ranking with no floor, no defences',
      modes: { direct: { supported: true }, natural: { supported: true } },
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
    },
    async open() {
      opened = true;
    },
    async insert({ namespace, writes, metadata = {} }): Promise<InsertReport> {
      const items = itemsOf(namespace);
      const texts = writes.mode === 'direct' ? writes.current : writes.episodes.map((episode) => episode.text);
      const warnings: RecordedWarning[] = [];
      for (const text of texts) {
        const reason = refusal(namespace, text, metadata);
        if (reason !== null) {
          quarantine.push({ namespace, text, reason });
          warnings.push({ type: 'other', feature: 'quarantine', message: `write quarantined: ${reason}` });
          continue;
        }
        items.push({ id: `${id}-${++sequence}`, text, metadata: { ...metadata } });
      }
      return { stored: items.length, extractor: 'none', warnings };
    },
    async search(request: SearchRequest) {
      const items = itemsOf(request.namespace);
      if (request.filter !== undefined)
        throw new UnsupportedFeatureError(id, 'filter', 'records carry no validity fields');
      const wanted = [...new Set(contentWords(request.query))];
      const scored = items
        .filter((item) =>
          Object.entries(request.metadataFilter ?? {}).every(([key, value]) => item.metadata[key] === value),
        )
        .filter((item) => !stuffed(item.text, request.query))
        .map((item, order) => {
          const words = contentWords(item.text);
          const score = wanted.reduce((sum, word) => sum + Math.min(TF_CAP, words.filter((w) => w === word).length), 0);
          return { item, order, score };
        })
        .sort((a, b) => b.score - a.score || a.order - b.order);
      const records: MemoryRecord[] = scored
        .slice(0, Math.max(0, request.limit))
        .map(({ item, score }) => ({ id: item.id, text: item.text, fields: { ...item.metadata, score } }));
      return { records, warnings: [] };
    },
    async reset(namespace) {
      itemsOf(namespace);
      namespaces.delete(namespace);
    },
    async close() {
      opened = false;
    },
    quarantined: () => [...quarantine],
  };
}
