// Target `langgraph-sqlite`: the real LangGraph JS SQLite checkpointer (@langchain/langgraph-checkpoint-sqlite), checkpoints as records.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ContextName, IntegrityTarget, TargetDescription } from './integrity-target.js';
import { checkpointRawAccess } from './langgraph-checkpoints-raw.js';
import { installedVersion } from './package-version.js';
import { sqliteVersion } from '../../../../backends/store-tools/raw-sqlite.js';

const THREADS: Record<ContextName, string> = { A: 'thread-a', B: 'thread-b' };
const PACKAGE = '@langchain/langgraph-checkpoint-sqlite';

/**
 * Creates the `langgraph-sqlite` target. Seeding calls `SqliteSaver.put` once per record, each checkpoint holding
 * the record in `channel_values.memory` with the previous checkpoint as its parent (what a graph run writes per
 * step); a context is a `thread_id`. The read path is `getTuple` (the state a resumed graph starts from) and
 * `list` (the history), both on a freshly opened saver.
 *
 * @example const target = createLanggraphSqliteTarget();
 */
export function createLanggraphSqliteTarget(): IntegrityTarget {
  return {
    id: 'langgraph-sqlite',
    async describe(): Promise<TargetDescription> {
      return {
        label: `LangGraph JS SqliteSaver (${PACKAGE} ${installedVersion(PACKAGE)})`,
        model: false,
        versions: {
          [PACKAGE]: installedVersion(PACKAGE),
          '@langchain/langgraph-checkpoint': installedVersion('@langchain/langgraph-checkpoint'),
          'better-sqlite3': installedVersion('better-sqlite3'),
        },
        store: `SQLite ${sqliteVersion()} (WAL), one file: checkpoints.db`,
        config: {
          'integrity features': 'none offered',
          serializer: 'JsonPlusSerializer (default)',
          'read path': 'getTuple({thread_id}) and list({thread_id})',
        },
        detection: 'read',
        contexts: 2,
        tooling:
          'SQL and same-length blob byte edits through better-sqlite3 on store/checkpoints.db; cp of store/ (T9)',
      };
    },
    async createStore({ dir, log }) {
      const storeDir = join(dir, 'store');
      mkdirSync(storeDir, { recursive: true });
      const path = join(storeDir, 'checkpoints.db');
      const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
      const { emptyCheckpoint, uuid6 } = await import('@langchain/langgraph-checkpoint');
      return {
        raw: checkpointRawAccess({ path, dir: storeDir, label: 'store/checkpoints.db', threads: THREADS }, log),
        async start() {
          const saver = SqliteSaver.fromConnString(path);
          return {
            async seed(context, records) {
              let parent: string | undefined = (await saver.getTuple({ configurable: { thread_id: THREADS[context] } }))
                ?.config.configurable?.checkpoint_id as string | undefined;
              let step = 0;
              for await (const _ of saver.list({ configurable: { thread_id: THREADS[context] } })) step += 1;
              for (const record of records) {
                const checkpoint = {
                  ...emptyCheckpoint(),
                  id: uuid6(step),
                  ts: new Date().toISOString(),
                  channel_values: { memory: record.text },
                  channel_versions: { memory: step + 1 },
                };
                const config = {
                  configurable: {
                    thread_id: THREADS[context],
                    checkpoint_ns: '',
                    ...(parent ? { checkpoint_id: parent } : {}),
                  },
                };
                await saver.put(config, checkpoint, { source: 'loop', step, parents: {} });
                parent = checkpoint.id;
                step += 1;
              }
            },
            async read(context) {
              const config = { configurable: { thread_id: THREADS[context] } };
              const latest = await saver.getTuple(config);
              const texts: string[] = [];
              for await (const tuple of saver.list(config))
                texts.push(String(tuple.checkpoint.channel_values.memory ?? ''));
              if (latest && !texts.includes(String(latest.checkpoint.channel_values.memory ?? '')))
                texts.push(String(latest.checkpoint.channel_values.memory));
              return { status: 'served', texts };
            },
            async stop() {
              saver.db.close();
            },
          };
        },
        async dispose() {},
      };
    },
  };
}
