// The front-door mem0-py row at agmi's mem0ai (2.0.20) and at PyPI's newest (2.2.1), side by side (issue #28 item 3):
// a verdict the version flipped would be a finding. Both rank with the run's lexical embedder here (labelled so on
// every cell); the real-embedder cells of 2.0.20 are pinned in python-frontdoor.stores.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingStoreEnv } from '../../../../backends/python/store-envs.js';
import { frontdoorMain } from '../harness/frontdoor-command.js';
import type { FrontdoorResults } from '../harness/frontdoor-results.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const reason = missingStoreEnv(root, 'mem0-py') ?? missingStoreEnv(root, 'mem0-py-latest');
if (reason) console.log(`[stores] front door mem0-py@2.2.1 skipped: ${reason}`);
const out = mkdtempSync(join(tmpdir(), 'fd-mem0-versions-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('front door: mem0-py at two versions', () => {
  it.skipIf(reason !== null)(
    'mem0ai 2.2.1 gives the cells of 2.0.20 on every attack (no verdict flipped), each row naming its version',
    async () => {
      const printed: string[] = [];
      const code = await frontdoorMain(
        ['--target', 'mem0-py,mem0-py@2.2.1', '--json', '-o', join(out, 'run')],
        {},
        { out: (text) => printed.push(text), err: () => undefined },
      );
      expect(code).toBe(0);
      const results = JSON.parse(printed.join('')) as FrontdoorResults;
      const [older, newer] = ['mem0-py', 'mem0-py@2.2.1'].map((id) => results.targets.find((t) => t.id === id)!);
      expect(older?.version).toMatch(/^mem0ai 2\.0\.20 /);
      expect(newer?.version).toMatch(/^mem0ai 2\.2\.1 /);
      const cells = (row: typeof older) =>
        row!.cells.map((cell) => [cell.attack, cell.verdict, cell.fixtures.fell, cell.channels]);
      expect(cells(newer)).toEqual(cells(older));
      expect(cells(older).map(([attack, verdict]) => `${attack} ${verdict}`)).toEqual([
        'memory_injection@v1 surfaced',
        'cross_session_bleed@v1 kept out',
        'retrieval_hijack@v1 surfaced',
        'indirect_prompt_injection@v1 surfaced',
        'update_poisoning@v1 surfaced',
        'metadata_poisoning@v1 surfaced',
      ]);
    },
    600_000,
  );
});
