// Target `poem-ledger`: the PoEM execution ledger (guard/execution-ledger.ts) on JSON-lines files; edits are line edits.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_ENCODING_VERSION } from '../../../../guard/execution-ledger-encoding.js';
import { generateLedgerKey } from '../../../../guard/execution-ledger-key.js';
import { createExecutionLedger } from '../../../../guard/execution-ledger.js';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, IntegrityTarget, RawAccess, RawRecord, TargetDescription } from './integrity-target.js';
import { directorySnapshot, jsonlFile, type JsonlFile, type JsonLine } from './raw-files.js';

/** The safety step every seeded event records; T8 relabels one event as another step. */
const ACTION = 'dual-approval';
const OTHER_ACTION = 'ciso-approval';
const FILES: Record<ContextName, string> = { A: 'ledger-a.jsonl', B: 'ledger-b.jsonl' };

const toRaw = (context: ContextName, line: JsonLine): RawRecord => ({
  slot: `${context}:${String(line.step)}`,
  owner: context,
  position: Number(line.step),
  text: String(line.subject),
  body: canonicalJson({ action: line.action, subject: line.subject, prev: line.prev, mac: line.mac }),
  labels: { action: line.action ?? null },
});

/**
 * Creates `poem-ledger`. A context is one ledger file (two runs' ledgers under the same runtime key); a record is an
 * event whose subject is the seeded text (stored normalised: lower case). The read path is what the grounding check
 * does before it trusts the ledger: `verifyChain()` on a fresh reader (no cached head survives a restart), then the
 * verified events. The key is generated per cell and held only in this process.
 *
 * @example const target = createPoemLedgerTarget();
 */
export function createPoemLedgerTarget(): IntegrityTarget {
  const description: TargetDescription = {
    label: 'PoEM execution ledger (stalebench guard/execution-ledger.ts), file-backed',
    model: false,
    versions: { 'stalebench execution ledger': `encoding v${LEDGER_ENCODING_VERSION}` },
    store: `one JSON-lines file per ledger (node:fs, Node ${process.versions.node})`,
    config: {
      mac: 'HMAC-SHA-256 chain over action, subject, step and previous MAC (poem.md §2.1)',
      head: 'cached in the process only; no signed or witnessed head at rest',
      'read path': 'reader.verifyChain() (fail closed), then the verified events',
    },
    detection: 'read',
    contexts: 2,
    tooling: 'line edits of store/ledger-a.jsonl and store/ledger-b.jsonl (node:fs); cp of store/ (T9)',
  };
  return {
    id: 'poem-ledger',
    describe: async () => description,
    async createStore({ dir, log }) {
      const storeDir = join(dir, 'store');
      mkdirSync(storeDir, { recursive: true });
      const key = generateLedgerKey();
      const files: Record<ContextName, JsonlFile> = {
        A: jsonlFile(join(storeDir, FILES.A), `store/${FILES.A}`, log),
        B: jsonlFile(join(storeDir, FILES.B), `store/${FILES.B}`, log),
      };
      const locate = async (record: RawRecord): Promise<{ file: JsonlFile; index: number; line: JsonLine }> => {
        const file = files[record.owner as ContextName];
        const lines = await file.read();
        const index = lines.findIndex((line) => Number(line.step) === record.position);
        if (index < 0) throw new Error(`no ledger line ${record.slot}`);
        return { file, index, line: lines[index] as JsonLine };
      };
      const raw: RawAccess = {
        list: async (context) => (await files[context].read()).map((line) => toRaw(context, line)),
        async writeBody(record, body) {
          const { file, index, line } = await locate(record);
          const moved = parseBody(body);
          await file.replace(index, {
            v: line.v ?? 1,
            step: line.step ?? 0,
            action: moved.action ?? null,
            subject: moved.subject ?? null,
            prev: moved.prev ?? null,
            mac: moved.mac ?? null,
          });
        },
        async remove(record) {
          const { file, index } = await locate(record);
          await file.remove(index);
        },
        async changeMeaning(record) {
          const { file, index, line } = await locate(record);
          await file.replace(index, { ...line, subject: changedNumber(String(line.subject)).text });
        },
        async forge(tip) {
          const { file, line } = await locate(tip);
          await file.append({
            v: 1,
            step: Number(line.step) + 1,
            action: line.action ?? ACTION,
            subject: changedNumber(String(line.subject)).text,
            prev: line.mac ?? null,
            mac: randomBytes(32).toString('hex'),
          });
        },
        async relabel(record) {
          const { file, index, line } = await locate(record);
          await file.replace(index, { ...line, action: line.action === OTHER_ACTION ? ACTION : OTHER_ACTION });
        },
        snapshot: () => directorySnapshot(storeDir, 'store', log),
      };
      return {
        raw,
        async start() {
          const ledgers = {
            A: createExecutionLedger({ key, path: join(storeDir, FILES.A) }),
            B: createExecutionLedger({ key, path: join(storeDir, FILES.B) }),
          };
          return {
            async seed(context, records) {
              for (const record of records)
                await ledgers[context].writer.append({ action: ACTION, subject: record.text });
            },
            async read(context) {
              const verified = await ledgers[context].reader.verifyChain();
              if (!verified.ok)
                return { status: 'refused', reason: `verifyChain: ${verified.failure}: ${verified.reason}` };
              const entries = await ledgers[context].reader.readUnverified();
              return { status: 'served', texts: entries.slice(0, verified.head.length).map((entry) => entry.subject) };
            },
            async stop() {},
          };
        },
        async dispose() {},
      };
    },
  };
}
