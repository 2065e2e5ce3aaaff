import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRedisBinaries } from '../../backends/test-support/redis-server.js';
import { connectRedis } from '../suites/integrity/targets/raw-redis.js';
import { SERVICE_LOADERS } from './registry.js';
import { isAlive, readServiceState } from './service-state.js';
import { main } from './services-command.js';

const found = findRedisBinaries(join(import.meta.dirname, '..', '..'));
const reason = typeof found === 'string' ? found : null;
if (reason) console.log(`[stores] redis service skipped: ${reason}`);
const root = mkdtempSync(join(tmpdir(), 'redis-service-'));
const context = { root, loaders: SERVICE_LOADERS, env: { ...process.env, STALEBENCH_REDIS_URL: undefined } };
const run = async (argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (text) => out.push(text),
    (text) => err.push(text),
    context,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
};
afterAll(async () => {
  await run(['stop']);
  rmSync(root, { recursive: true, force: true });
});

describe('pnpm services start|stop redis', () => {
  it.skipIf(reason !== null)(
    'starts Redis 8 with its query engine on loopback at the printed URL; stop ends it',
    async () => {
      const started = await run(['start', 'redis']);
      expect(started.code).toBe(0);
      const [, url] = /^export STALEBENCH_REDIS_URL=(redis:\/\/127\.0\.0\.1:\d+\/0)$/.exec(started.out) ?? [];
      expect(url).toBeDefined();
      const connection = await connectRedis(url!);
      try {
        expect(await connection.command(['PING'])).toBe('PONG');
        // The modules langgraph-checkpoint-redis needs are loaded (RediSearch answers FT._LIST, RedisJSON JSON.SET).
        expect(await connection.command(['FT._LIST'])).toEqual([]);
        expect(await connection.command(['JSON.SET', 'probe', '$', '{"a":1}'])).toBe('OK');
      } finally {
        connection.close();
      }
      const state = readServiceState(root, 'redis')!;
      expect(isAlive(state.pid)).toBe(true);
      expect((await run(['start', 'redis'])).out).toBe(started.out);
      const stopped = await run(['stop', 'redis']);
      expect(stopped).toMatchObject({ code: 0, err: `redis: stopped (pid ${state.pid}); its data is deleted` });
      expect(isAlive(state.pid)).toBe(false);
      expect(existsSync(state.dataDir)).toBe(false);
      await expect(connectRedis(url!)).rejects.toThrow();
    },
  );
});
