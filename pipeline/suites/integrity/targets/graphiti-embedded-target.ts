// Target `graphiti@embedded` (model): our Graphiti port on the embedded graph store, persisted as one JSON file.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import { GRAPHITI_CORE_LABEL, GRAPHITI_CORE_VERSION } from '../../../../backends/graphiti-version.js';
import { graphJsonRawAccess } from './graph-json-raw.js';
import { graphitiGroup, GRAPHITI_REVOCATION_FIELDS, startGraphitiSession } from './graphiti-session.js';
import type { IntegrityTarget, TargetDescription } from './integrity-target.js';
import { LEDGER_CONFIG, openCellLedger } from './ledger-read.js';
import { createJsonFileGraphStore } from './json-file-graph-store.js';

/**
 * Creates `graphiti@embedded`: Graphiti (graphiti-core 0.31.2) as ported in backends/graphiti-backend.ts, on the embedded graph
 * store whose state the harness keeps in `store/graph.json` (the embedded engine has no at-rest form of its own).
 * With `ledger` (`graphiti+ledger@embedded`) the application writes through the revocation ledger and reads through it.
 *
 * @example const target = createGraphitiEmbeddedTarget();
 */
export function createGraphitiEmbeddedTarget(options: { ledger?: boolean } = {}): IntegrityTarget {
  const description: TargetDescription = {
    label: `Graphiti (model): our ${GRAPHITI_CORE_LABEL} port on the embedded graph store, persisted as a JSON file${options.ledger ? ', revocation ledger' : ''}`,
    model: true,
    versions: { 'graphiti-core (ported)': GRAPHITI_CORE_VERSION, 'stalebench embedded graph store': 'json-file v1' },
    store: `embedded graph store state in one JSON file (node:fs, Node ${process.versions.node})`,
    config: {
      'integrity features': 'none (Graphiti has none)',
      seeding: 'direct mode: one RELATES_TO edge per record, no LLM',
      'read path': 'search() default recipe (BM25 + cosine, RRF); revoked edges are returned by default',
      embedder: `${createLexicalEmbedder().id} (offline)`,
      ...(options.ledger ? LEDGER_CONFIG : {}),
    },
    detection: 'read',
    contexts: 2,
    revocationFields: GRAPHITI_REVOCATION_FIELDS,
    tooling: 'JSON edits of store/graph.json (node:fs); cp of store/ (T9)',
  };
  return {
    id: options.ledger ? 'graphiti+ledger@embedded' : 'graphiti@embedded',
    describe: async () => description,
    async createStore({ dir, cellId, log }) {
      const storeDir = join(dir, 'store');
      mkdirSync(storeDir, { recursive: true });
      const path = join(storeDir, 'graph.json');
      const ledger = options.ledger ? openCellLedger(dir) : undefined;
      return {
        raw: graphJsonRawAccess(
          path,
          'store/graph.json',
          storeDir,
          { A: graphitiGroup(cellId, 'A'), B: graphitiGroup(cellId, 'B') },
          log,
        ),
        start: () => startGraphitiSession(createJsonFileGraphStore(path), cellId, dir, undefined, ledger),
        async dispose() {},
      };
    },
  };
}
