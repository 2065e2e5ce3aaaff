// Target `langgraph-redis`: LangGraph's RedisSaver (PyPI langgraph-checkpoint-redis) on a real Redis 8 with RediSearch
// and RedisJSON, through the store driver; raw edits are RESP commands on the cell's keys.
import { findRedisBinaries, startRedisServer } from '../../../../backends/test-support/redis-server.js';
import type { IntegrityTarget, Unavailable } from './integrity-target.js';
import { dropCell, redisCheckpointRawAccess } from './langgraph-redis-raw.js';
import { createPythonStoreTarget } from './python-store-target.js';

/** Where the target finds its server. */
export interface LanggraphRedisSettings {
  /** Repository root (the store environment `langgraph-redis` holds the saver, the server and its modules). */
  root: string;
  /** An existing server with RediSearch and RedisJSON (`STALEBENCH_REDIS_URL`); without it the target starts one. */
  redisUrl?: string;
}

type Server = { url: string; stop?: () => Promise<void> } | { error: string };

/** The target, plus a way to stop the server it started (a process exit stops it too). */
export interface LanggraphRedisTarget extends IntegrityTarget {
  /** Stops the server this target started, if any; a later cell starts a new one. */
  close(): Promise<void>;
}

const prefixOf = (cell: Record<string, unknown>): string => `${String(cell.key_prefix)}_checkpoint`;

/**
 * Creates the RedisSaver target (backends/python/store_adapters/langgraph_redis_store.py). One Redis server per
 * target object (so per process): `settings.redisUrl` when given, else one started on first use from the
 * environment's binaries and stopped when the process exits. Each cell has its own key prefix (the saver's
 * `checkpoint_prefix`, hence its own keys and search indexes), removed when the cell is disposed; a restart is a new
 * Python process on the same server.
 *
 * Measured here (agmi's table: all nine accepted, on Redis 8 in Docker): every edit accepted as well; T2 is scored in
 * its pointer-moved form (the two newest documents deleted and `checkpoint_latest` set to the new tip), T5's forged
 * document is made the head the same way, T9 restores DUMPs of every key of the cell (the pointer included).
 *
 * @example const target = createLanggraphRedisTarget({ root: process.cwd(), redisUrl: process.env.STALEBENCH_REDIS_URL });
 */
export function createLanggraphRedisTarget(settings: LanggraphRedisSettings): LanggraphRedisTarget {
  let server: Promise<Server> | undefined;
  const running = () =>
    (server ??= settings.redisUrl
      ? Promise.resolve({ url: settings.redisUrl })
      : startRedisServer(settings.root).then(
          (started) => ({ url: started.url, stop: started.stop }),
          (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
        ));
  const urlOf = async (): Promise<string> => {
    const found = await running();
    if ('error' in found) throw new Error(`no Redis server: ${found.error}`);
    return found.url;
  };
  const base = createPythonStoreTarget({
    id: 'langgraph-redis',
    adapter: 'langgraph_redis_store',
    config: {},
    root: settings.root,
    env: 'langgraph-redis',
    server: {
      async versionConfig() {
        const found = await running();
        return 'url' in found ? { redis_url: found.url } : {};
      },
      cellConfig: async (cellId) => ({ redis_url: await urlOf(), key_prefix: `sb_${cellId}` }),
      disposeCell: (cell) => dropCell(String(cell.redis_url), prefixOf(cell), () => undefined),
      tooling: 'RESP commands over TCP (JSON.GET/JSON.SET, SET, DEL; DUMP/RESTORE … REPLACE for T9) on the cell’s keys',
    },
    raw: (files, log, cell) =>
      redisCheckpointRawAccess(
        { url: String(cell.redis_url), checkpointPrefix: prefixOf(cell), threads: files.owners },
        log,
      ),
  });
  return {
    ...base,
    async unavailable(): Promise<Unavailable | null> {
      const missing = await base.unavailable?.();
      if (missing) return missing;
      if (!settings.redisUrl) {
        const binaries = findRedisBinaries(settings.root);
        if (typeof binaries === 'string') return { reason: binaries, missingPrerequisite: true };
      }
      const found = await running();
      return 'error' in found ? { reason: `the Redis server did not start: ${found.error}` } : null;
    },
    async close() {
      const found = await server;
      server = undefined;
      if (found && 'stop' in found) await found.stop?.();
    },
  };
}
