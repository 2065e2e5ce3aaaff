import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { enginesFromEnv, main } from './clean-command.js';

afterEach(() => vi.restoreAllMocks());

async function clean(args: string[]) {
  const lines: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...parts) => void lines.push(parts.join(' ')));
  const code = await main(args, {}, (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

describe('pnpm clean', () => {
  it('needs exactly one of --run and --orphans, and --engine with --orphans', async () => {
    expect((await clean([])).output).toContain('give exactly one of --run <id> and --orphans');
    expect((await clean(['--run', 'x', '--orphans'])).code).toBe(1);
    expect((await clean(['--orphans'])).output).toContain('--orphans needs --engine');
    expect((await clean(['--orphans', '--engine', 'mongo'])).output).toContain(
      'unknown engine "mongo"; available: embedded, neo4j, qdrant',
    );
    expect((await clean(['--orphans', '--bogus'])).code).toBe(1);
  });

  it('has nothing to remove on the embedded engine', async () => {
    expect(await clean(['--orphans', '--engine', 'embedded'])).toEqual({
      code: 0,
      output: 'embedded engines keep nothing outside the eval process: nothing to remove',
    });
  });

  it('refuses a directory that is not a run, and cleans a run on the embedded engine (its work files)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-clean-unit-'));
    mkdirSync(join(out, 'empty'));
    const notRun = await clean(['--run', 'empty', '--out', out]);
    expect(notRun.code).toBe(1);
    expect(notRun.output).toMatch(/--run:\n.*empty: no manifest.json: not a run directory/);
    mkdirSync(join(out, 'r', 'work', 'mem0', '0badcafe'), { recursive: true });
    writeFileSync(
      join(out, 'r', 'manifest.json'),
      JSON.stringify({
        spec: { engine: { graph: { id: 'embedded' }, vector: { id: 'embedded' } } },
        invocations: [{ nonce: '0badcafe' }],
      }),
    );
    const result = await clean(['--run', 'r', '--out', out]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`${join(out, 'r')}: clean`);
    expect(existsSync(join(out, 'r', 'work'))).toBe(false);
  });

  it('reads endpoints and credentials from the environment', () => {
    expect(
      enginesFromEnv(['neo4j', 'qdrant'], {
        NEO4J_URI: 'bolt://db:7687',
        NEO4J_PASSWORD: 'pw',
        QDRANT_URL: 'http://q:6333',
      }),
    ).toEqual({
      graph: { id: 'neo4j', uri: 'bolt://db:7687', user: 'neo4j', password: 'pw' },
      vector: { id: 'qdrant', url: 'http://q:6333' },
    });
  });
});
