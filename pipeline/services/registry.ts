// The services `pnpm services` knows: one lazy line per service, so starting Postgres loads nothing of Neo4j.
import type { Service } from './service.js';

/** Every service by id; adding one = its file plus one line here. */
export const SERVICE_LOADERS: Readonly<Record<string, () => Promise<Service>>> = {
  neo4j: async () => (await import('./neo4j-service.js')).neo4jService,
  postgres: async () => (await import('./postgres-service.js')).postgresService,
  redis: async () => (await import('./redis-service.js')).redisService,
};
