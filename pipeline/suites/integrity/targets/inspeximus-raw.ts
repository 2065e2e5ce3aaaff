// Raw access to an inspeximus row store: SQL on its `records` table (id, ord, doc JSON), never the library.
import { randomBytes } from 'node:crypto';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import type { PythonStoreFiles } from './python-store-target.js';
import { directorySnapshot } from './raw-files.js';
import { withRawSqlite, type RawSqlite } from '../../../../backends/store-tools/raw-sqlite.js';

interface Row {
  id: string;
  ord: number;
  doc: string;
}
type Doc = Record<string, JsonValue> & { meta?: Record<string, JsonValue> };

const REVOCATION = ['superseded_by_policy', 'retired_reason'] as const;

const toRaw = (row: Row): RawRecord => {
  const doc = JSON.parse(row.doc) as Doc;
  const { uid, ...meta } = doc.meta ?? {};
  const { id: _id, ...rest } = doc;
  return {
    slot: row.id,
    owner: String(uid),
    position: row.ord,
    text: String(doc.text ?? ''),
    body: canonicalJson({ ...rest, meta }),
    labels: {
      status: doc.status ?? null,
      source: (doc.source as { doc?: JsonValue } | null)?.doc ?? null,
      ...Object.fromEntries(REVOCATION.map((key) => [key, meta[key] ?? null])),
    },
  };
};

/**
 * Raw access over `records`. A record's owner is `doc.meta.uid` (inspeximus' user id), its order `ord`; the body is the
 * whole document except its id and owner, so moving it keeps the slot. T8 relabels the library's own provenance field
 * (`source: {doc: 'web'}` → `{doc: 'user'}`). Un-revoking sets `status` back to `active`
 * and drops the retirement markers (`meta.superseded_by_policy`, `meta.retired_reason`).
 */
export function inspeximusRawAccess(files: PythonStoreFiles, log: (command: string) => void): RawAccess {
  const sql = <T>(work: (db: RawSqlite) => T): T => withRawSqlite(files.sqlite, 'store/memory.db', log, work);
  const docOf = (db: RawSqlite, id: string): Doc => {
    const [row] = db.all<Row>('SELECT id, ord, doc FROM records WHERE id = ?', [id]);
    if (!row) throw new Error(`no inspeximus record ${id}`);
    return JSON.parse(row.doc) as Doc;
  };
  const update = (record: RawRecord, change: (doc: Doc) => Doc): void =>
    sql((db) =>
      db.run('UPDATE records SET doc = ? WHERE id = ?', [JSON.stringify(change(docOf(db, record.slot))), record.slot]),
    );
  return {
    list: async (context) =>
      sql((db) => db.all<Row>('SELECT id, ord, doc FROM records ORDER BY ord'))
        .map(toRaw)
        .filter((record) => record.owner === files.owners[context]),
    async writeBody(record, body) {
      const moved = parseBody(body) as Doc;
      update(record, () => ({ ...moved, id: record.slot, meta: { ...(moved.meta ?? {}), uid: record.owner } }));
    },
    async remove(record) {
      sql((db) => db.run('DELETE FROM records WHERE id = ?', [record.slot]));
    },
    async changeMeaning(record) {
      update(record, (doc) => ({ ...doc, text: changedNumber(String(doc.text)).text }));
    },
    async forge(tip) {
      sql((db) => {
        const doc = docOf(db, tip.slot);
        const [top] = db.all<{ ord: number }>('SELECT max(ord) AS ord FROM records');
        const id = randomBytes(5).toString('hex');
        const forged = {
          ...doc,
          id,
          text: changedNumber(String(doc.text)).text,
          nonce: randomBytes(16).toString('hex'),
          ts: Number(doc.ts ?? 0) + 1,
        };
        db.run('INSERT INTO records (id, ord, doc) VALUES (?, ?, ?)', [
          id,
          (top?.ord ?? 0) + 1,
          JSON.stringify(forged),
        ]);
      });
    },
    async relabel(record) {
      update(record, (doc) => ({
        ...doc,
        source: { ...((doc.source ?? {}) as Record<string, JsonValue>), doc: 'user' },
      }));
    },
    async unrevoke(record) {
      update(record, (doc) => {
        const meta = Object.fromEntries(
          Object.entries(doc.meta ?? {}).filter(([key]) => !(REVOCATION as readonly string[]).includes(key)),
        );
        return { ...doc, status: 'active', meta };
      });
    },
    snapshot: () => directorySnapshot(files.storeDir, 'store', log),
  };
}
