// The Graphiti system (our port, backends/graphiti-backend.ts) as a running integrity session on any graph store.
import type { GraphStore } from '../../../../backends/graph-store.js';
import { createGraphitiBackend, groupId } from '../../../../backends/graphiti-backend.js';
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import { createSimExtractionModel } from '../../../../backends/sim-extraction-model.js';
import type { RevocationLedger } from '../../../../guard/revocation-ledger.js';
import { withRevocationLedger } from '../../../../guard/revocation-ledger-client.js';
import type { ContextName, JsonValue, TargetSession } from './integrity-target.js';
import { judgedRecords, ledgerCheckedRead } from './ledger-read.js';

/** Namespaces of the two contexts. */
const GRAPHITI_NAMESPACE: Record<ContextName, string> = { A: 'ctx-a', B: 'ctx-b' };

/** What the read path asks (every seeded record shares these words with it). */
const GRAPHITI_QUERY = 'approved transfer limit vault phrase';

/** Graphiti's revocation fields, cleared by the `T8:unrevoke` variant. */
export const GRAPHITI_REVOCATION_FIELDS = ['expired_at', 'invalid_at'] as const;

/** The edge properties that move with an edge (its content and metadata), in body order. */
export const EDGE_BODY_FIELDS = [
  'name',
  'fact',
  'fact_embedding',
  'episodes',
  'created_at',
  'valid_at',
  'invalid_at',
  'expired_at',
] as const;

/** The edge properties reported as labels (T8 changes `created_at`; unrevoke clears the revocation fields). */
export const EDGE_LABEL_FIELDS = ['name', 'created_at', 'valid_at', 'invalid_at', 'expired_at'] as const;

/** The group id a context's edges carry in the store. */
export function graphitiGroup(runId: string, context: ContextName): string {
  return groupId(runId, GRAPHITI_NAMESPACE[context]);
}

/** Shifts an ISO datetime by −30 days: T8's timestamp change. */
export function thirtyDaysEarlier(value: JsonValue | undefined): string {
  return new Date(Date.parse(String(value)) - 30 * 86_400_000).toISOString();
}

/** The edge uuids of each context in the order the session wrote them (the raw access's record order on Neo4j). */
export type WriteOrder = Map<ContextName, string[]>;

/**
 * Opens the Graphiti backend on `store` and exposes it as a session: seeding is direct-mode `insert` (one call per
 * record, revoked records with Graphiti's own `expired_at`/`invalid_at`), reading is the default `search()`
 * (which returns revoked edges too), stopping closes the backend and the store. With `order`, each new edge's uuid
 * is appended to its context's list: Graphiti's edges carry no write order, and stalebench adds nothing to them.
 * With `ledger`, seeding goes through the revocation ledger client and the read refuses what the ledger does not bind.
 */
export async function startGraphitiSession(
  store: GraphStore,
  runId: string,
  workDir: string,
  order?: WriteOrder,
  ledger?: RevocationLedger,
): Promise<TargetSession> {
  const backend = createGraphitiBackend({
    embedder: createLexicalEmbedder(),
    runId,
    workDir,
    extraction: createSimExtractionModel(),
    store,
  });
  await backend.open();
  const writer = ledger ? withRevocationLedger(backend, ledger).backend : backend;
  return {
    async seed(context, records) {
      const stored = async () =>
        new Set((await backend.listRecords!(GRAPHITI_NAMESPACE[context])).map((item) => item.record.id));
      for (const record of records) {
        const [revoked, current] = record.revoked ? [[record.text], []] : [[], [record.text]];
        const before = order ? await stored() : new Set<string>();
        await writer.insert({
          namespace: GRAPHITI_NAMESPACE[context],
          now: new Date(),
          writes: { mode: 'direct', revoked, current },
        });
        if (order)
          order.set(context, [
            ...(order.get(context) ?? []),
            ...[...(await stored())].filter((uuid) => !before.has(uuid)),
          ]);
      }
    },
    async read(context) {
      const { records } = await backend.search({
        namespace: GRAPHITI_NAMESPACE[context],
        query: GRAPHITI_QUERY,
        limit: 50,
      });
      if (ledger) return ledgerCheckedRead(ledger, GRAPHITI_NAMESPACE[context], judgedRecords(records, new Date()));
      return { status: 'served', texts: records.map((record) => record.text) };
    },
    async stop() {
      await backend.close();
      await store.close();
    },
  };
}
