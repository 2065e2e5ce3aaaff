import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main as evalMain } from '../pipeline/cli.js';
import { main } from './rescore-command.js';

describe('pnpm rescore', () => {
  it('recomputes byte-identical summary cells from the run directory alone, with the network disabled', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-rescore-'));
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const code = await evalMain(['eval', '--model', 'sim', '--systems', 'graphiti,mem0-exp,langmem', '--modes', 'direct,natural', '--arms', 'none,store-filter,output-filter,guard', '--guard', 'off,on', '--trials', '2', '--out', out], {});
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const runDir = join(out, readdirSync(out)[0]!);
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(() => {
      throw new Error('network disabled in this test');
    });
    const lines: string[] = [];
    expect(main([runDir, '--check'], (line) => lines.push(line), (line) => lines.push(line))).toBe(0);
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
    expect(lines.join('\n')).toContain('summary cells identical');
    const original = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    const rescored = JSON.parse(readFileSync(join(runDir, 'summary.rescored.json'), 'utf8'));
    expect(JSON.stringify(rescored.cells)).toBe(JSON.stringify(original.cells));
    expect(JSON.stringify(rescored.guardMetrics)).toBe(JSON.stringify(original.guardMetrics));
  }, 60_000);

  it('fails with the path when the directory is not a run', () => {
    const errors: string[] = [];
    expect(main([tmpdir()], () => {}, (line) => errors.push(line))).toBe(1);
    expect(errors.join('\n')).toMatch(/no manifest/);
  });
});
