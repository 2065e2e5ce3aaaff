// Raw access to the JSON file behind the persisted embedded vector store: parse, change one point, write it back.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { readVectorFile, type StoredPoint } from './json-file-vector-store.js';
import { directorySnapshot } from './raw-files.js';

/** How one system lays its records out in the payload. */
export interface PayloadLayout {
  /** The collection holding the records. */
  collection: string;
  /** The owner of a point as the store encodes it, or null for points of no context (skipped). */
  ownerOf(payload: Record<string, JsonValue>): string | null;
  /** The owner string of each context. */
  owners: Record<ContextName, string>;
  /** Payload keys that are identity or owner and never move with the body. */
  fixed: readonly string[];
  /** Payload keys reported as labels. */
  labels: readonly string[];
  /** The record text inside the payload. */
  textOf(payload: Record<string, JsonValue>): string;
  /** The payload with its text replaced (T1, T5). */
  withText(payload: Record<string, JsonValue>, text: string): Record<string, JsonValue>;
  /** The payload with one label changed (T8). */
  relabelled(payload: Record<string, JsonValue>): Record<string, JsonValue>;
  /** The payload of a forged point with a fresh id (T5). */
  forgedPayload(template: Record<string, JsonValue>, id: string): Record<string, JsonValue>;
}

/** Raw access to the vector file at `path`; `storeDir` is copied whole for T9. */
export function vectorJsonRawAccess(
  path: string,
  label: string,
  storeDir: string,
  layout: PayloadLayout,
  log: (command: string) => void,
): RawAccess {
  const points = (): StoredPoint[] => readVectorFile(path).collections[layout.collection]?.points ?? [];
  const toRaw = (point: StoredPoint): RawRecord => {
    const moving = Object.fromEntries(Object.entries(point.payload).filter(([key]) => !layout.fixed.includes(key)));
    return {
      slot: point.id,
      owner: String(layout.ownerOf(point.payload as Record<string, JsonValue>)),
      position: point.rank,
      text: layout.textOf(point.payload as Record<string, JsonValue>),
      body: canonicalJson({ payload: moving, vector: point.vector }),
      labels: Object.fromEntries(layout.labels.map((key) => [key, (point.payload[key] ?? null) as JsonValue])),
    };
  };
  const edit = (id: string, describe: string, change: (point: StoredPoint) => StoredPoint | null): void => {
    const file = readVectorFile(path);
    const list = file.collections[layout.collection]?.points ?? [];
    const at = list.findIndex((point) => point.id === id);
    if (at < 0) throw new Error(`${label}: no point ${id}`);
    const changed = change(list[at] as StoredPoint);
    if (changed === null) list.splice(at, 1);
    else list[at] = changed;
    writeFileSync(path, `${JSON.stringify(file)}\n`);
    log(`file ${label}: ${describe} (collection ${layout.collection}, point ${id}); file rewritten`);
  };
  const payloadOf = (point: StoredPoint) => point.payload as Record<string, JsonValue>;
  return {
    list: async (context) =>
      points()
        .filter((point) => layout.ownerOf(payloadOf(point)) === layout.owners[context])
        .sort((a, b) => a.rank - b.rank)
        .map(toRaw),
    async writeBody(record, body) {
      const moved = parseBody(body);
      edit(record.slot, "set the payload's content fields and the vector to another point's", (point) => {
        const fixed = Object.fromEntries(
          layout.fixed.filter((key) => key in point.payload).map((key) => [key, point.payload[key]]),
        );
        return {
          ...point,
          vector: moved.vector as number[],
          payload: { ...(moved.payload as Record<string, unknown>), ...fixed },
        };
      });
    },
    async remove(record) {
      edit(record.slot, 'delete the point', () => null);
    },
    async changeMeaning(record) {
      const text = changedNumber(record.text).text;
      edit(record.slot, `set the text to ${JSON.stringify(text)}`, (point) => ({
        ...point,
        payload: layout.withText(payloadOf(point), text),
      }));
    },
    async forge(tip) {
      const file = readVectorFile(path);
      const list = file.collections[layout.collection]?.points ?? [];
      const template = list.find((point) => point.id === tip.slot);
      if (!template) throw new Error(`${label}: no point ${tip.slot}`);
      const id = randomUUID();
      const payload = layout.withText(layout.forgedPayload(payloadOf(template), id), changedNumber(tip.text).text);
      list.push({ id, vector: [...template.vector], payload, rank: Math.max(...list.map((point) => point.rank)) + 1 });
      writeFileSync(path, `${JSON.stringify(file)}\n`);
      log(`file ${label}: append point ${id} with payload ${JSON.stringify(payload)} and the vector of ${tip.slot}`);
    },
    async relabel(record) {
      edit(record.slot, `change a label (${layout.labels.join(', ')})`, (point) => ({
        ...point,
        payload: layout.relabelled(payloadOf(point)),
      }));
    },
    snapshot: () => directorySnapshot(storeDir, 'store', log),
  };
}
