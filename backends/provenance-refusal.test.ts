// Every system without provenance refuses a journal's `derivedFrom` and a taint read: never stored, never ignored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { loadBackend, SYSTEMS } from './index.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const FACT = 'Decision record: for deploy, the approved action is skip.';

describe('provenance on systems without it', () => {
  for (const id of SYSTEMS.ids) {
    it(`${id}: refuses derivedFrom and taint with UnsupportedFeatureError unless it declares provenance`, async (test) => {
      const line = SYSTEMS.get(id) as { prerequisite?: () => Promise<unknown> };
      const problem = await line.prerequisite?.();
      if (problem) test.skip(`${id} needs what this machine lacks: ${String(problem)}`);
      const workDir = mkdtempSync(join(tmpdir(), 'stalebench-provenance-'));
      const backend = await loadBackend(id, {
        embedder: createLexicalEmbedder(),
        runId: 'prov',
        workDir,
        extraction: createSimExtractionModel(),
      });
      await backend.open();
      try {
        const supported = backend.description.provenance?.direct.supported === true;
        const insert = backend.insert({
          namespace: 'n',
          now: NOW,
          writes: { mode: 'direct', revoked: [], current: [FACT], relation: 'DECISION' },
          derivedFrom: ['x'],
        });
        const search = backend.search({ namespace: 'n', query: 'deploy', limit: 5, taint: true });
        if (supported) {
          await expect(insert).resolves.toMatchObject({ stored: 1 });
          await expect(search).resolves.toBeDefined();
          return;
        }
        await expect(insert).rejects.toThrow(UnsupportedFeatureError);
        await expect(insert).rejects.toThrow(/write provenance/);
        await expect(search).rejects.toThrow(/taint read/);
        expect(backend.description.provenance).toBeUndefined();
      } finally {
        await backend.reset('n').catch(() => undefined);
        await backend.close();
        rmSync(workDir, { recursive: true, force: true });
      }
    });
  }
});
