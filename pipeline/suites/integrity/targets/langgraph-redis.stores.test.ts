import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { missingStoreEnv } from '../../../../backends/python/store-envs.js';
import {
  findRedisBinaries,
  startRedisServer,
  type RunningRedis,
} from '../../../../backends/test-support/redis-server.js';
import { createLanggraphRedisTarget } from './langgraph-redis-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import { connectRedis, replyText } from './raw-redis.js';
import { loadIntegrityTarget } from './registry.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const binaries = findRedisBinaries(root);
const envMissing = missingStoreEnv(root, 'langgraph-redis') ?? (typeof binaries === 'string' ? binaries : null);
// One server for the row (the STALEBENCH_REDIS_URL path), so the test can look at what the cells left on it.
const redis: RunningRedis | null = envMissing ? null : await startRedisServer(root);
afterAll(() => redis?.stop());
const target = redis ? createLanggraphRedisTarget({ root, redisUrl: redis.url }) : null;
const reason = envMissing ?? (await target?.unavailable?.())?.reason ?? null;
if (reason) console.log(`[stores] langgraph-redis skipped: ${reason}`);

const ask = async (url: string, args: string[]) => {
  const connection = await connectRedis(url);
  try {
    return await connection.command(args);
  } finally {
    connection.close();
  }
};

// Pinned measurement of the real PyPI saver on a real Redis (agmi's table: all nine accepted on Redis 8).
describe('langgraph-redis: RedisSaver on Redis 8.2 with RediSearch and RedisJSON', () => {
  it.skipIf(reason !== null)(
    'langgraph-checkpoint-redis 0.5.2 serves all nine edits, C1–C3 holding, each cell on keys of its own',
    async () => {
      if (!target || !redis) throw new Error('unreachable: skipped without a server');
      const description = await target.describe();
      expect(description.versions).toMatchObject({ 'langgraph-checkpoint-redis': '0.5.2', 'redis-server': '8.2.3' });
      expect(description.store).toMatch(/^Redis 8\.2\.3 with ReJSON 2\.8\.3, search 2\.10\.5/);
      const { row, result } = await measuredRow(target);
      expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
      expect(allControlsHeld(result)).toBe(true);
      const cells = Object.fromEntries(result.cells.map((cell) => [cell.edit, cell]));
      // T2 in its scored form: the two newest documents gone and the latest pointer moved to the new tip.
      expect(cells.T2?.form).toBe('head pointer moved to the new tip');
      expect(cells.T2?.commands.at(-1)).toMatch(/ SET \S+_checkpoint_latest:thread-a:__empty__ /);
      expect(cells.T5?.observation).toBe('served 6 records; 1 of 1 edited contents among them');
      expect(cells.T9?.commands.filter((command) => / RESTORE .* REPLACE$/.test(command))).toHaveLength(12);
      // Isolation: every raw command of a cell names that cell's prefix only; disposal left nothing on the server.
      for (const cell of result.cells)
        for (const command of cell.commands.filter((line) => line.startsWith('redis-cli')))
          expect(command.match(/sb_langgraph-redis-T\d-[a-z0-9]+_/g) ?? []).toSatisfy((prefixes: string[]) =>
            prefixes.every((prefix) => prefix.startsWith(`sb_langgraph-redis-${cell.edit}-`)),
          );
      expect(await ask(redis.url, ['DBSIZE'])).toBe(0);
      expect(await ask(redis.url, ['FT._LIST'])).toEqual([]);
    },
    300_000,
  );

  it.skipIf(reason !== null)(
    'the registry passes STALEBENCH_REDIS_URL; without one the target starts its own server and stops it by pidfile',
    async () => {
      if (!redis) throw new Error('unreachable: skipped without a server');
      const registered = await loadIntegrityTarget('langgraph-redis', {
        env: { STALEBENCH_REDIS_URL: redis.url },
        root,
      });
      // The adapter's describe asks the server for its version: the given server counts that connection.
      const connections = async () =>
        Number(/total_connections_received:(\d+)/.exec(replyText(await ask(redis.url, ['INFO', 'stats'])) ?? '')?.[1]);
      const before = await connections();
      expect(await registered.describe()).toMatchObject({ versions: { 'redis-server': '8.2.3' } });
      expect(await connections()).toBeGreaterThan(before + 1);
      const own = createLanggraphRedisTarget({ root });
      try {
        expect(await own.unavailable?.()).toBeNull();
        expect((await own.describe()).store).toMatch(/^Redis 8\.2\.3 with /);
      } finally {
        await own.close();
      }
      const started = await startRedisServer(root);
      const modules = (await ask(started.url, ['MODULE', 'LIST'])) as Buffer[][];
      expect(modules.map((fields) => replyText(fields[1] ?? null)).sort()).toEqual(['ReJSON', 'search', 'vectorset']);
      expect(started.version).toMatch(/^Redis server v=8\.2\.3 /);
      await started.stop();
      await expect(ask(started.url, ['PING'])).rejects.toThrow(/not reachable/);
    },
    120_000,
  );
});
