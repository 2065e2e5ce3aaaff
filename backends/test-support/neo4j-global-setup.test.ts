// Issue #26 item 13: without Java or Maven the Neo4j suite skips, saying why, instead of failing its setup.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestProject } from 'vitest/node';
import setup, { missingNeo4jTools } from './neo4j-global-setup.js';

const dirs: string[] = [];
const binDir = (...tools: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-neo4j-path-'));
  dirs.push(dir);
  for (const tool of tools) {
    writeFileSync(join(dir, tool), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, tool), 0o755);
  }
  return dir;
};
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the Neo4j suite without Java or Maven', () => {
  it('names the missing tools from PATH', () => {
    expect(missingNeo4jTools({ PATH: binDir() })).toEqual(['java', 'mvn']);
    expect(missingNeo4jTools({ PATH: binDir('java') })).toEqual(['mvn']);
    expect(missingNeo4jTools({ PATH: binDir('java', 'mvn') })).toEqual([]);
  });

  it('provides no server and prints the reason and the remedy, so every Neo4j test skips', async () => {
    vi.stubEnv('PATH', binDir());
    vi.stubEnv('NEO4J_URI', '');
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...parts) => void printed.push(parts.join(' ')));
    const provide = vi.fn();
    await expect(setup({ provide } as unknown as TestProject)).resolves.toBeUndefined();
    expect(provide).not.toHaveBeenCalled();
    expect(printed).toEqual([expect.stringContaining('[neo4j-global-setup] skipped: java and mvn not found')]);
    expect(printed[0]).toContain('Java 17+ and Maven 3.8+ (bash .ci/install installs');
  });
});
