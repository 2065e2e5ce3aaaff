// The revocation ledger's thin client-side wrapper: records every write, revoke and supersede the application performs
// through a memory system, and judges what that system's reads return against the ledger.
import type { InsertRequest, MemoryBackend, MemoryRecord } from '../backends/memory-backend.js';
import { explicitRevocation } from './guard-record.js';
import type { LedgerRecordRef, LedgerVerdict, RevocationLedger } from './revocation-ledger.js';

/** A memory system seen through the ledger client. */
export interface LedgeredBackend {
  /** The system with `insert` recorded; every other member is the system's own. */
  backend: MemoryBackend;
  /** The application supersedes `revoked` (a text it wrote in `namespace`) by `by`: bound, with the ids holding it. */
  supersede(namespace: string, revoked: string, by: string, at: Date): Promise<void>;
  /** The ledger's verdict on each record a read of `namespace` returned, in order (clock `now` for expiry dates). */
  verdicts(namespace: string, records: readonly MemoryRecord[], now: Date): LedgerVerdict[];
}

/**
 * Wraps `backend` so the application's writes go through the ledger. After each insert the wrapper lists the
 * namespace the way a client of that system can (Graphiti's edges by group, mem0 `getAll`, Zep CE's facts; the
 * backend's `listRecords`) and binds every new or changed record (id, owner, content hash, position); a system with
 * no listing gets the written texts bound with no id. A direct-mode write's revoked facts are the application's own
 * revocations, bound as superseded by the first current fact (stale-retrieval.md §3: v2 first). Natural-mode
 * ingestion revokes nothing by itself: the application states what a later episode supersedes with `supersede`.
 *
 * @example
 * const { backend: writer, verdicts } = withRevocationLedger(backend, ledger);
 * await writer.insert({ namespace, now, writes });
 * verdicts(namespace, (await backend.search(request)).records, now);
 */
export function withRevocationLedger(backend: MemoryBackend, ledger: RevocationLedger): LedgeredBackend {
  const listed = async (namespace: string): Promise<MemoryRecord[] | null> =>
    backend.listRecords ? (await backend.listRecords(namespace)).map((stored) => stored.record) : null;
  const holding = async (namespace: string, text: string): Promise<LedgerRecordRef[]> => {
    const found = ((await listed(namespace)) ?? []).filter((record) => record.text === text);
    return found.length > 0
      ? found.map((record) => ({ id: record.id, owner: namespace, text }))
      : [{ id: null, owner: namespace, text }];
  };
  const insert = async (request: InsertRequest) => {
    const { namespace, now, writes } = request;
    const before = new Map(((await listed(namespace)) ?? []).map((record) => [record.id, record.text]));
    const report = await backend.insert(request);
    const after = await listed(namespace);
    if (after === null) {
      const texts =
        writes.mode === 'natural' ? writes.episodes.map((e) => e.text) : [...writes.revoked, ...writes.current];
      for (const text of texts) ledger.bind({ id: null, owner: namespace, text }, now);
    } else
      for (const record of after)
        if (before.get(record.id) !== record.text)
          ledger.bind({ id: record.id, owner: namespace, text: record.text }, now);
    if (writes.mode === 'direct') {
      const successor = writes.current[0];
      for (const fact of writes.revoked)
        for (const ref of await holding(namespace, fact))
          ledger.revoke(ref, now, successor === undefined ? null : { id: null, owner: namespace, text: successor });
    }
    return report;
  };
  return {
    backend: { ...backend, insert },
    async supersede(namespace, revoked, by, at) {
      for (const ref of await holding(namespace, revoked))
        ledger.revoke(ref, at, { id: null, owner: namespace, text: by });
    },
    verdicts(namespace, records, now) {
      const statusless = backend.description.statusFields.length === 0;
      return ledger.verdicts(
        namespace,
        records.map((record) => ({
          id: record.id,
          text: record.text,
          storeRevoked: statusless ? null : explicitRevocation({ fact: record.text, ...record.fields }, now) !== null,
        })),
      );
    },
  };
}
