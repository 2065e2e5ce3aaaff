// Target `mem0`: the real mem0ai OSS Memory on its own SQLite files; edits are SQL on vector_store.db.
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import { mem0Paths, mem0Version, openMem0Client } from '../../../../backends/mem0-client.js';
import { createMem0ChatModel } from '../../../../backends/mem0-extraction-llm.js';
import { revokedExpirationDate } from '../../../../backends/mem0-records.js';
import { createSimExtractionModel } from '../../../../backends/sim-extraction-model.js';
import type { ContextName, IntegrityTarget, TargetDescription } from './integrity-target.js';
import { toMem0Record } from '../../../../backends/mem0-records.js';
import { judgedRecords, LEDGER_CONFIG, ledgerCheckedRead, openCellLedger } from './ledger-read.js';
import { mem0RawAccess } from './mem0-raw.js';
import { installedVersion } from './package-version.js';
import { sqliteVersion } from '../../../../backends/store-tools/raw-sqlite.js';

const USER: Record<ContextName, string> = { A: 'ctx-a', B: 'ctx-b' };
const READ_LIMIT = 1000;

/**
 * Creates the `mem0` target: mem0ai's `Memory` with the SQLite `memory` vector store and the SQLite history store
 * in the cell's directory, the offline lexical embedder and `infer: false` (no model: memories are stored verbatim).
 * A context is a mem0 user id; the read path is `getAll({filters: {user_id}})` with mem0's default `showExpired: false`.
 * With `ledger` (`mem0+ledger`) every add and revocation is bound in the revocation ledger, and the read refuses what
 * it does not bind (pipeline/suites/integrity/targets/ledger-read.ts).
 *
 * @example const target = createMem0Target();
 */
export function createMem0Target(options: { ledger?: boolean } = {}): IntegrityTarget {
  const embedder = createLexicalEmbedder();
  return {
    id: options.ledger ? 'mem0+ledger' : 'mem0',
    async describe(): Promise<TargetDescription> {
      return {
        label: `mem0 OSS Memory (mem0ai ${mem0Version()}), SQLite memory vector store${options.ledger ? ', revocation ledger' : ''}`,
        model: false,
        versions: { mem0ai: mem0Version(), 'better-sqlite3': installedVersion('better-sqlite3') },
        store: `SQLite ${sqliteVersion()}: vector_store.db (vectors) and history.db`,
        config: {
          'integrity features': 'none offered by mem0 OSS',
          ingestion: 'add(text, {infer: false, metadata: {source}}) — verbatim, no LLM',
          'read path': "getAll({filters: {user_id}}) with mem0's default showExpired: false",
          embedder: `${embedder.id} (offline, ${embedder.dimensions} dimensions)`,
          ...(options.ledger ? LEDGER_CONFIG : {}),
        },
        detection: 'read',
        contexts: 2,
        revocationFields: ['expiration_date'],
        tooling: 'SQL through better-sqlite3 on mem0/vector_store.db; cp of the mem0 directory (T9)',
      };
    },
    async createStore({ dir, log }) {
      const paths = mem0Paths(dir);
      const raw = mem0RawAccess(paths, USER, log);
      const ledger = options.ledger ? openCellLedger(dir) : undefined;
      return {
        raw,
        async start() {
          const client = await openMem0Client({
            paths,
            embedder,
            llm: { provider: 'langchain', model: createMem0ChatModel(createSimExtractionModel()) },
          });
          const { memory } = client;
          return {
            async seed(context, records) {
              for (const record of records) {
                const expiry = record.revoked ? { expirationDate: revokedExpirationDate(new Date()) } : {};
                const { results } = await memory.add(record.text, {
                  userId: USER[context],
                  infer: false,
                  metadata: { ...record.labels },
                  ...expiry,
                });
                for (const { id } of ledger ? results : []) {
                  const ref = { id, owner: USER[context], text: record.text };
                  ledger?.bind(ref, new Date());
                  if (record.revoked) ledger?.revoke(ref, new Date());
                }
              }
            },
            async read(context) {
              const { results } = await memory.getAll({ filters: { user_id: USER[context] }, topK: READ_LIMIT });
              if (ledger)
                return ledgerCheckedRead(ledger, USER[context], judgedRecords(results.map(toMem0Record), new Date()));
              return { status: 'served', texts: results.map((item) => item.memory) };
            },
            async stop() {
              client.close();
            },
          };
        },
        async dispose() {},
      };
    },
  };
}
