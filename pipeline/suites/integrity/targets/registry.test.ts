import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnknownComponentError } from '#core/errors.js';
import { INTEGRITY_TARGET_IDS, loadIntegrityTarget } from './registry.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const environment = { env: {}, root };

describe('integrity target registry', () => {
  it('lists every target of issue #14, each loaded lazily under its own id', async () => {
    expect(INTEGRITY_TARGET_IDS).toEqual([
      'reference',
      'reference-no-witness',
      'mem0',
      'mem0+ledger',
      'langgraph-sqlite',
      'graphiti@neo4j',
      'graphiti+ledger@neo4j',
      'graphiti@embedded',
      'graphiti+ledger@embedded',
      'langmem',
      'cognee',
      'poem-ledger',
      'runlog',
      'inspeximus',
      'inspeximus-receipts-unsigned',
      'langgraph-sqlite-py',
      'langgraph-sqlite-py@3.1.1',
      'memory-blackbox-alive',
      'memory-blackbox-restarted',
      'memory-blackbox-restarted@0.1.0',
      'atelya-attest',
      'atelya-attest-anchored',
      'continuum',
      'continuum-signed',
      'acrf-memory-guard',
      'inspeximus-receipts-keyed',
      'inspeximus-receipts-keyed-confighome',
      'inspeximus@3.0.0',
      'inspeximus-receipts-unsigned@3.0.0',
      'inspeximus-receipts-keyed@3.0.0',
      'inspeximus-receipts-keyed-confighome@3.0.0',
      'langgraph-redis',
      'langgraph-postgres',
      'langgraph-postgres@3.2.0',
      'openai-agents-sqlite',
      'openai-agents-sqlite@0.24.0',
      'langgraph-ledger',
      'langgraph-sqlite-encrypted',
      'mem0-py',
      'mem0-py@2.2.1',
      'mythologiq-agent-memory',
      'letta',
      'letta@0.34.12',
    ]);
    for (const id of INTEGRITY_TARGET_IDS) expect((await loadIntegrityTarget(id, environment)).id).toBe(id);
    await expect(loadIntegrityTarget('toString', environment)).rejects.toBeInstanceOf(UnknownComponentError);
  });

  it('registers every *-target.ts file with one lazy import line', () => {
    const registry = readFileSync(join(import.meta.dirname, 'registry.ts'), 'utf8');
    const files = readdirSync(import.meta.dirname).filter(
      (file) => file.endsWith('-target.ts') && file !== 'integrity-target.ts' && file !== 'python-store-target.ts',
    );
    expect(files.length).toBeGreaterThan(8);
    for (const file of files)
      expect(registry, `${file} is not registered`).toContain(`import('./${file.replace(/\.ts$/, '.js')}')`);
  });

  it('labels every row that is not the real library "(model)" and states a detection point and tooling', async () => {
    for (const id of [
      'reference',
      'reference-no-witness',
      'mem0',
      'langgraph-sqlite',
      'graphiti@embedded',
      'langmem',
      'cognee',
      'poem-ledger',
      'runlog',
    ]) {
      const description = await (await loadIntegrityTarget(id, environment)).describe();
      expect(
        description.label.includes('(model)'),
        `${id}: model ${description.model}, label "${description.label}"`,
      ).toBe(description.model);
      expect(Object.keys(description.versions).length, id).toBeGreaterThan(0);
      expect(description.tooling, id).not.toBe('');
    }
  });
});
