// Target `reference` / `reference-no-witness`: the reference store of integrity.md §7.5, edited as plain files.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { IntegrityTarget, RawAccess, RawRecord, TargetDescription } from './integrity-target.js';
import { directorySnapshot, jsonlFile, type JsonLine } from './raw-files.js';
import { openReferenceStore } from './reference-store.js';

/** Settings of the reference target. */
export interface ReferenceTargetSettings {
  /** Keep the head witness in a separate file outside the store directory (default true). */
  witness?: boolean;
}

const toRaw = (line: JsonLine): RawRecord => ({
  slot: `${String(line.context)}:${String(line.seq)}`,
  owner: String(line.context),
  position: Number(line.seq),
  text: String(line.content),
  body: canonicalJson({ content: line.content, labels: line.labels, prev: line.prev, tag: line.tag }),
  labels: (line.labels ?? {}) as RawRecord['labels'],
});

/**
 * Creates the reference target. Every cell gets a fresh random 32-byte key held only in this process, a store
 * directory `<cell>/store` (what the attacker holds) and, with `witness`, `<cell>/witness/head.json` outside it.
 *
 * @example const target = createReferenceTarget({ witness: false }); // T9 is then accepted
 */
export function createReferenceTarget(settings: ReferenceTargetSettings = {}): IntegrityTarget {
  const witness = settings.witness ?? true;
  const description: TargetDescription = {
    label: `reference integrity store (model), ${witness ? 'head witness off the store' : 'no head witness'}`,
    model: true,
    versions: { 'stalebench-reference-store': 'v1' },
    store: `JSON-lines file + signed head file (node:fs, Node ${process.versions.node})`,
    config: {
      mac: 'HMAC-SHA-256 per record over content, context, position, previous tag and metadata',
      head: 'signed per context, beside the records',
      witness: witness ? 'on: a separate file outside the store directory, given at construction' : 'off',
    },
    detection: 'read',
    contexts: 2,
    tooling: 'line edits of store/records.jsonl and JSON edits of store/head.json (node:fs)',
  };
  return {
    id: witness ? 'reference' : 'reference-no-witness',
    describe: async () => description,
    async createStore({ dir, log }) {
      const storeDir = join(dir, 'store');
      const witnessPath = witness ? join(dir, 'witness', 'head.json') : undefined;
      if (witnessPath) mkdirSync(join(dir, 'witness'), { recursive: true });
      mkdirSync(storeDir, { recursive: true });
      const key = randomBytes(32);
      const file = jsonlFile(join(storeDir, 'records.jsonl'), 'store/records.jsonl', log);
      const lineOf = async (record: RawRecord): Promise<{ index: number; line: JsonLine }> => {
        const lines = await file.read();
        const index = lines.findIndex((line) => toRaw(line).slot === record.slot);
        if (index < 0) throw new Error(`no stored line for ${record.slot}`);
        return { index, line: lines[index] as JsonLine };
      };
      const raw: RawAccess = {
        list: async (context) => (await file.read()).map(toRaw).filter((record) => record.owner === context),
        async writeBody(record, body) {
          const { index, line } = await lineOf(record);
          const moved = parseBody(body);
          await file.replace(index, {
            context: line.context ?? null,
            seq: line.seq ?? null,
            content: moved.content ?? null,
            labels: moved.labels ?? null,
            prev: moved.prev ?? null,
            tag: moved.tag ?? null,
          });
        },
        async remove(record) {
          await file.remove((await lineOf(record)).index);
        },
        async changeMeaning(record) {
          const { index, line } = await lineOf(record);
          await file.replace(index, { ...line, content: changedNumber(String(line.content)).text });
        },
        async forge(tip) {
          const { line } = await lineOf(tip);
          await file.append({
            ...line,
            seq: Number(line.seq) + 1,
            content: changedNumber(String(line.content)).text,
            prev: line.tag ?? null,
            tag: randomBytes(32).toString('hex'),
          });
        },
        async moveHead(context, newTip) {
          const path = join(storeDir, 'head.json');
          const heads = JSON.parse(readFileSync(path, 'utf8')) as Record<
            string,
            { length: number; tag: string; sig: string }
          >;
          const head = heads[context];
          if (!head) throw new Error(`head.json has no head for ${context}`);
          const tipLine = newTip ? (await lineOf(newTip)).line : undefined;
          heads[context] = {
            ...head,
            length: newTip ? Number(newTip.position) + 1 : 0,
            tag: tipLine ? String(tipLine.tag) : '0'.repeat(64),
          };
          writeFileSync(path, `${JSON.stringify(heads)}\n`);
          log(
            `file store/head.json: set ${context}.length=${heads[context]?.length} ${context}.tag=${heads[context]?.tag} (signature left as it was: the attacker has no key)`,
          );
        },
        async relabel(record) {
          const { index, line } = await lineOf(record);
          await file.replace(index, {
            ...line,
            labels: { ...(line.labels as Record<string, string>), source: 'user' },
          });
        },
        snapshot: () => directorySnapshot(storeDir, 'store', log),
      };
      return {
        raw,
        async start() {
          const store = openReferenceStore({ dir: storeDir, key, ...(witnessPath ? { witnessPath } : {}) });
          return {
            async seed(context, records) {
              for (const record of records) store.append(context, record.text, { ...record.labels });
            },
            async read(context) {
              return { status: 'served', texts: store.read(context).map((record) => record.content) };
            },
            async stop() {},
          };
        },
        async dispose() {},
      };
    },
  };
}
