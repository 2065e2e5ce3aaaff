// The formatter's reach (issue #13 item 7): `pnpm format` rewrites our TypeScript and never a data file whose bytes
// matter (scenario JSON, data/paper, data/fixtures, prices, Markdown, TSV, package.json, Python and Java sources).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

/** Every file under `dir` (relative to the repository root), skipping dependency and cache folders. */
function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', '.cache', '__pycache__'].includes(entry.name) ? [] : files(path);
    return [path];
  });
}

/** How many of `paths` Biome would format (changed or unchanged), from its JSON report; writes nothing. */
function formatted(paths: readonly string[]): number {
  let output: string;
  try {
    output = execFileSync(BIOME, ['format', '--reporter=json', ...paths], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // Biome exits 1 when none of the given paths is in its scope; that is the answer "none".
    output = String((error as { stdout?: string }).stdout ?? '');
    if (!output.trim()) return 0;
  }
  const { summary } = JSON.parse(output) as { summary: { changed: number; unchanged: number } };
  return summary.changed + summary.unchanged;
}

describe('format scope', () => {
  const data = [...files('data'), ...files('scenarios'), ...files('backends'), 'README.md', 'package.json']
    .filter((path) => !path.endsWith('.ts'))
    .map((path) => relative(ROOT, join(ROOT, path)));

  it('finds the data files it guards (scenario JSON, paper tables, fixtures, Python sources)', () => {
    expect(data).toEqual(
      expect.arrayContaining([
        'scenarios/policy/index.json',
        'data/paper/table-06.json',
        'data/fixtures/defences/full-grid-cells.tsv',
        'data/fixtures/python-compat/repr.json',
        'data/prices.json',
      ]),
    );
    expect(data.filter((path) => path.endsWith('.py')).length).toBeGreaterThan(0);
  });

  it('formats TypeScript and none of the data files', () => {
    expect(formatted(['pipeline/run/run.ts'])).toBe(1);
    expect(formatted(data)).toBe(0);
  });
});
