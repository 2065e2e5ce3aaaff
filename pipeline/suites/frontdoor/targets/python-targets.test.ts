// The front-door rows on the Python libraries (mem0-py, letta-archival): registered, ranked by the run's embedder (so a
// lexical run says so on every cell), and a missing store environment named before anything is written.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embedderLabel } from '../harness/run-frontdoor.js';
import { createEmbedder } from '../../../../backends/index.js';
import { createSimExtractionModel } from '../../../../backends/sim-extraction-model.js';
import { createLettaArchivalBackend } from './letta-archival-backend.js';
import { FRONTDOOR_TARGET_IDS, frontdoorTarget } from './targets.js';

describe('front-door targets on the Python libraries', () => {
  it('registers mem0-py and letta-archival as real libraries that rank by the embedder, labelled lexical without one', async () => {
    expect(FRONTDOOR_TARGET_IDS).toEqual(expect.arrayContaining(['mem0-py', 'letta-archival']));
    const lexical = await createEmbedder({ id: 'lexical' });
    const mem0 = await frontdoorTarget('mem0-py');
    const letta = await frontdoorTarget('letta-archival');
    expect(mem0.version()).toBe('mem0ai 2.0.20 (Python, the real library), local Qdrant store, infer=False');
    expect(letta.version()).toBe('letta 0.16.8 archival memory (Python, the real library), one agent per user');
    for (const target of [mem0, letta]) {
      expect(target.ranksByEmbedder).toBe(true);
      expect(embedderLabel(target, lexical)).toBe(`${lexical.id} — lexical embedder (not a real embedder)`);
    }
  });

  it('letta-archival without its store environment fails on open naming the install command', async () => {
    const root = mkdtempSync(join(tmpdir(), 'letta-archival-root-'));
    const backend = createLettaArchivalBackend({
      embedder: await createEmbedder({ id: 'lexical' }),
      extraction: createSimExtractionModel(),
      runId: 'r1',
      workDir: join(root, 'work'),
      root,
    });
    await expect(backend.open()).rejects.toThrow(/pnpm stores install letta\b/);
    // Nothing is left open: a second close is harmless and the backend refuses use before a successful open.
    await backend.close();
    await expect(backend.search({ namespace: 'n', query: 'q', limit: 1 })).rejects.toThrow(/call open\(\) first/);
  });
});
