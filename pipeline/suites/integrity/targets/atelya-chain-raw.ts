// Raw access to Atelya Attest chain files (a JSON line per entry, a file per context): line edits, never the library.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { directorySnapshot, jsonlFile, type JsonLine } from './raw-files.js';

type Payload = Record<string, JsonValue> & { text?: string; id?: string; source?: string };
type Entry = JsonLine & { seq: number; ts: string | null; payload: Payload; curr_hash: string };

/** One day before an RFC 3339 `...Z` timestamp, in the same form (T8's changed timestamp). */
function dayEarlier(ts: string): string {
  return new Date(Date.parse(ts) - 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Raw access over `store/<chain>.jsonl`. A record is one chain entry; its slot is the chain and its `seq`, which is
 * also its position; everything else (event_id, ts, payload, prev_hash, curr_hash) is its body and moves with it.
 * T5 appends an entry templated on the tip with a changed number, the tip's curr_hash as prev_hash and a random
 * 64-hex curr_hash (the chain is keyed: an attacker without the key cannot compute it). T8 moves `ts` back a day.
 */
export function atelyaChainRawAccess(
  files: { storeDir: string; owners: Record<ContextName, string> },
  log: (command: string) => void,
): RawAccess {
  const fileOf = (owner: string) => jsonlFile(join(files.storeDir, `${owner}.jsonl`), `store/${owner}.jsonl`, log);
  const toRaw = (owner: string, entry: Entry): RawRecord => {
    const { seq, ...body } = entry;
    return {
      slot: `${owner}#${seq}`,
      owner,
      position: seq,
      text: String(entry.payload.text ?? ''),
      body: canonicalJson(body),
      labels: { ts: entry.ts, source: entry.payload.source ?? null },
    };
  };
  const located = async (record: RawRecord) => {
    const file = fileOf(record.owner);
    const entries = (await file.read()) as Entry[];
    const index = entries.findIndex((entry) => entry.seq === record.position);
    if (index < 0) throw new Error(`store/${record.owner}.jsonl holds no entry with seq ${record.position}`);
    return { file, index, entry: entries[index] as Entry };
  };
  return {
    list: async (context) => {
      const owner = files.owners[context];
      return ((await fileOf(owner).read()) as Entry[]).map((entry) => toRaw(owner, entry));
    },
    async writeBody(record, body) {
      const { file, index } = await located(record);
      const moved = parseBody(body);
      await file.replace(index, {
        seq: record.position,
        event_id: moved.event_id ?? null,
        ts: moved.ts ?? null,
        payload: moved.payload ?? null,
        prev_hash: moved.prev_hash ?? null,
        curr_hash: moved.curr_hash ?? null,
      });
    },
    async remove(record) {
      const { file, index } = await located(record);
      await file.remove(index);
    },
    async changeMeaning(record) {
      const { file, index, entry } = await located(record);
      await file.replace(index, {
        ...entry,
        payload: { ...entry.payload, text: changedNumber(String(entry.payload.text)).text },
      });
    },
    async forge(tip) {
      const { file, entry } = await located(tip);
      const seq = entry.seq + 1;
      const id = `${tip.owner}-m${seq}`;
      await file.append({
        seq,
        event_id: id,
        ts: entry.ts,
        payload: { ...entry.payload, id, text: changedNumber(String(entry.payload.text)).text },
        prev_hash: entry.curr_hash,
        curr_hash: randomBytes(32).toString('hex'),
      });
    },
    async relabel(record) {
      const { file, index, entry } = await located(record);
      if (typeof entry.ts !== 'string') throw new Error(`entry ${record.slot} has no timestamp to change`);
      await file.replace(index, { ...entry, ts: dayEarlier(entry.ts) });
    },
    snapshot: () => directorySnapshot(files.storeDir, 'store', log),
  };
}
