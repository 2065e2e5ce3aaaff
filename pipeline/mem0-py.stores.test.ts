// End-to-end: the Python mem0ai (store environment mem0-py) through `pnpm eval` in direct mode with the simulator: the
// exposure column is the paper's direct column for mem0 / mem0 (exp.) (stale-retrieval.md §15, Tables 6 and 13).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import { mem0PyProblem } from '../backends/mem0-py-backend.js';
import { storeDrivers } from '../backends/test-support/python-memory.js';
import { loadScenarios } from '../scenarios/index.js';
import { main } from './cli/cli.js';
import type { RunManifest } from './run-log/run-log.js';

const reason = (await mem0PyProblem())?.message ?? null;
if (reason !== null) console.log(`[stores] mem0-py systems skipped: ${reason}`);
const N = (await loadScenarios()).length;
const out = mkdtempSync(join(tmpdir(), 'stalebench-mem0-py-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('pnpm eval on mem0-py / mem0-py-exp (offline, sim, direct)', () => {
  it.skipIf(reason !== null)(
    "mem0's default search hides every revoked v1 (0/9) and show_expired=True returns it in every scenario (9/9)",
    async () => {
      const err: string[] = [];
      vi.spyOn(console, 'log').mockImplementation(() => {});
      vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
      const code = await main(
        [
          'eval',
          '--model',
          'sim',
          '--systems',
          'mem0-py,mem0-py-exp',
          '--modes',
          'direct',
          '--arms',
          'none,store-filter',
          '--trials',
          '1',
          '--out',
          out,
        ],
        {},
      );
      vi.restoreAllMocks();
      expect(code, err.join('\n')).toBe(0);
      const runDir = join(out, readdirSync(out)[0] ?? '');
      const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
      const cell = (system: string, arm: string) =>
        summary.cells.find((c) => c.system === system && c.arm === arm && c.mode === 'direct');
      expect(N).toBe(9);
      // Paper, direct: mem0 0/81 and mem0 (exp.) 81/81 over nine scenarios × nine models; exposure is model-independent.
      expect(cell('mem0-py', 'none')?.exposure).toEqual({ k: 0, n: N });
      expect(cell('mem0-py-exp', 'none')?.exposure).toEqual({ k: N, n: N });
      // The store filter (show_expired=False) keeps v1 out of every context on both.
      expect(cell('mem0-py', 'store-filter')?.contextExposure).toEqual({ k: 0, n: N });
      expect(cell('mem0-py-exp', 'store-filter')?.contextExposure).toEqual({ k: 0, n: N });
      const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
      expect(manifest.components?.filter((c) => c.kind === 'system')).toEqual([
        { kind: 'system', id: 'mem0-py', args: { variant: 'default', library: 'mem0ai==2.0.20' } },
        { kind: 'system', id: 'mem0-py-exp', args: { variant: 'expired-shown', library: 'mem0ai==2.0.20' } },
      ]);
      expect(storeDrivers()).toEqual([]);
    },
    600_000,
  );
});
