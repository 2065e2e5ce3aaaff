import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { main } from '../harness/integrity-command.js';
import { createGraphitiNeo4jTarget } from './graphiti-neo4j-target.js';

const unusedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('graphiti@neo4j without a server', () => {
  it('names the missing NEO4J_URI, and the command exits 1 before running anything', async () => {
    expect(await createGraphitiNeo4jTarget({}).unavailable?.()).toMatchObject({
      missingPrerequisite: true,
      reason: expect.stringContaining('set NEO4J_URI'),
    });
    const err: string[] = [];
    const code = await main(
      ['--target', 'graphiti@neo4j'],
      { write: () => true },
      { write: (chunk: string) => err.push(chunk) },
      {},
    );
    expect(code).toBe(1);
    expect(err.join('')).toContain('target graphiti@neo4j cannot run: no Neo4j server: set NEO4J_URI');
  });

  it('a URI nobody answers on is reported with the URI, within seconds', async () => {
    const uri = `bolt://127.0.0.1:${await unusedPort()}`;
    const started = Date.now();
    expect(await createGraphitiNeo4jTarget({ NEO4J_URI: uri }).unavailable?.()).toMatchObject({
      missingPrerequisite: true,
      reason: expect.stringContaining(`${uri} did not answer`),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
