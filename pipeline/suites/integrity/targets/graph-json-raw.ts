// Raw access to the JSON file behind the persisted embedded graph store: parse, change one edge, write the file back.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import {
  EDGE_BODY_FIELDS,
  EDGE_LABEL_FIELDS,
  GRAPHITI_REVOCATION_FIELDS,
  thirtyDaysEarlier,
} from './graphiti-session.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { readGraphFile, type GraphFile, type StoredEdge } from './json-file-graph-store.js';
import { directorySnapshot } from './raw-files.js';

const pick = (edge: StoredEdge, fields: readonly string[]): Record<string, JsonValue> =>
  Object.fromEntries(fields.map((field) => [field, (edge as unknown as Record<string, JsonValue>)[field] ?? null]));

const toRaw = (edge: StoredEdge): RawRecord => ({
  slot: edge.uuid,
  owner: edge.group_id,
  position: edge.rank,
  text: edge.fact,
  body: canonicalJson(pick(edge, EDGE_BODY_FIELDS)),
  labels: pick(edge, EDGE_LABEL_FIELDS),
});

/** Raw access to `path` (label `label` in logs) for the edges of `groups`; `storeDir` is copied whole for T9. */
export function graphJsonRawAccess(
  path: string,
  label: string,
  storeDir: string,
  groups: Record<ContextName, string>,
  log: (command: string) => void,
): RawAccess {
  const edit = (
    uuid: string,
    describe: string,
    change: (edge: StoredEdge, file: GraphFile) => StoredEdge | null,
  ): void => {
    const file = readGraphFile(path);
    const at = file.edges.findIndex((edge) => edge.uuid === uuid);
    if (at < 0) throw new Error(`${label}: no edge ${uuid}`);
    const changed = change(file.edges[at] as StoredEdge, file);
    if (changed === null) file.edges.splice(at, 1);
    else file.edges[at] = changed;
    writeFileSync(path, `${JSON.stringify(file)}\n`);
    log(`file ${label}: ${describe} (edge ${uuid}); file rewritten (${Buffer.byteLength(readFileSync(path))} bytes)`);
  };
  return {
    list: async (context) =>
      readGraphFile(path)
        .edges.filter((edge) => edge.group_id === groups[context])
        .sort((a, b) => a.rank - b.rank)
        .map(toRaw),
    async writeBody(record, body) {
      const moved = parseBody(body);
      edit(record.slot, `set ${EDGE_BODY_FIELDS.join(', ')} to another edge's values`, (edge) => ({
        ...edge,
        ...(moved as unknown as Partial<StoredEdge>),
      }));
    },
    async remove(record) {
      edit(record.slot, 'delete the edge', () => null);
    },
    async changeMeaning(record) {
      edit(record.slot, `set fact to ${JSON.stringify(changedNumber(record.text).text)}`, (edge) => ({
        ...edge,
        fact: changedNumber(edge.fact).text,
      }));
    },
    async forge(tip) {
      const file = readGraphFile(path);
      const template = file.edges.find((edge) => edge.uuid === tip.slot);
      if (!template) throw new Error(`${label}: no edge ${tip.slot}`);
      const forged: StoredEdge = {
        ...template,
        uuid: randomUUID(),
        fact: changedNumber(template.fact).text,
        rank: Math.max(...file.edges.map((edge) => edge.rank)) + 1,
      };
      file.edges.push(forged);
      writeFileSync(path, `${JSON.stringify(file)}\n`);
      log(
        `file ${label}: append edge ${JSON.stringify({ ...forged, fact_embedding: `[${forged.fact_embedding?.length ?? 0} numbers copied from ${tip.slot}]` })}`,
      );
    },
    async relabel(record) {
      edit(record.slot, 'move created_at 30 days earlier', (edge) => ({
        ...edge,
        created_at: thirtyDaysEarlier(edge.created_at),
      }));
    },
    async unrevoke(record) {
      edit(record.slot, `set ${GRAPHITI_REVOCATION_FIELDS.join(' and ')} to null`, (edge) => ({
        ...edge,
        expired_at: null,
        invalid_at: null,
      }));
    },
    snapshot: () => directorySnapshot(storeDir, 'store', log),
  };
}
