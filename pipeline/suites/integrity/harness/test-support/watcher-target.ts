// Test target: a file watcher over the LangGraph JS saver that baselines from the store as it finds it on each start.
import { join } from 'node:path';
import { canonicalJson } from '../../../../../backends/store-tools/canonical-json.js';
import type { IntegrityTarget, TargetPosition } from '../../targets/integrity-target.js';
import { checkpointRawAccess } from '../../targets/langgraph-checkpoints-raw.js';
import { createLanggraphSqliteTarget } from '../../targets/langgraph-sqlite-target.js';

/**
 * The position gap of integrity.md §2.3 in miniature (memory-blackbox 0.1.0's design, model): each start takes the
 * digest of context A as the store holds it, the agent's own writes move the digest, and the audit reports any other
 * change. With the process alive across an edit the audit names it; after a restart the edit is the new baseline.
 */
export function watcherTarget(position: TargetPosition): IntegrityTarget {
  const inner = createLanggraphSqliteTarget();
  return {
    id: `test-watcher-${position}`,
    describe: async () => ({
      ...(await inner.describe()),
      label: 'start-baselined watcher over the LangGraph JS SqliteSaver (model)',
      model: true,
      detection: 'audit',
      position,
    }),
    async createStore(settings) {
      const store = await inner.createStore(settings);
      // The watcher's own reads of the file are not edit commands: a reader that logs nothing.
      const watched = checkpointRawAccess(
        {
          path: join(settings.dir, 'store', 'checkpoints.db'),
          dir: join(settings.dir, 'store'),
          label: 'store/checkpoints.db',
          threads: { A: 'thread-a', B: 'thread-b' },
        },
        () => undefined,
      );
      const digest = async () => canonicalJson(await watched.list('A'));
      return {
        ...store,
        async start() {
          const session = await store.start();
          await session.read('A'); // the saver creates its tables on first use
          let baseline = await digest();
          return {
            ...session,
            async seed(context, records) {
              await session.seed(context, records);
              baseline = await digest();
            },
            audit: async () =>
              (await digest()) === baseline
                ? { ok: true }
                : {
                    ok: false,
                    reason: 'watcher: context A changed since the last scan (a write the agent did not make)',
                  },
          };
        },
      };
    },
  };
}
