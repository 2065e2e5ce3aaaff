import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importCycles, readImportGraph, readImportSpecifiers, readPackageImports } from './import-graph.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway project: `files` maps a path to its source. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'stalebench-graph-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('import graph', () => {
  it('counts static, type-only, re-export and dynamic imports of project files, resolving .js to .ts; packages are not files', () => {
    const root = project({
      'a/x.ts':
        "import type { T } from './t.js';\nimport { y } from '../b/y.js';\nexport * from './z.js';\nconst lazy = () => import('./w.js');\nimport { z } from 'zod';\n// import { no } from './comment.js';\n",
      'a/t.ts': '',
      'a/z.ts': '',
      'a/w.ts': '',
      'b/y.ts': '',
      'a/x.test.ts': "import './x.js';\n",
    });
    const graph = readImportGraph(root, ['a', 'b']);
    expect(graph.get('a/x.ts')).toEqual(['a/t.ts', 'a/w.ts', 'a/z.ts', 'b/y.ts']);
    expect(graph.get('a/x.test.ts')).toEqual(['a/x.ts']);
  });

  it("resolves the package's subpath imports (#core/…) to project files, and keeps them out of the packages", () => {
    const root = project({
      'package.json': JSON.stringify({ imports: { '#core/*': './p/core/*', '#compat/*': './p/compat/*' } }),
      'a/x.ts':
        "import { E } from '#core/errors.js';\nimport type { T } from '#compat/deep/t.js';\nimport { z } from 'zod';\nimport '#unknown/u.js';\n",
      'p/core/errors.ts': '',
      'p/compat/deep/t.ts': '',
    });
    expect(readImportGraph(root, ['a', 'p']).get('a/x.ts')).toEqual(['p/compat/deep/t.ts', 'p/core/errors.ts']);
    expect(readPackageImports(root, ['a']).get('a/x.ts')).toEqual(['zod']);
    expect(readImportSpecifiers(root, ['a']).get('a/x.ts')).toEqual([
      '#core/errors.js',
      '#compat/deep/t.js',
      'zod',
      '#unknown/u.js',
    ]);
  });

  it('lists the packages and built-ins a file imports, apart from its project files', () => {
    const root = project({
      'a/x.ts':
        "import { z } from 'zod';\nimport { join } from 'node:path';\nimport type { T } from './t.js';\nconst lazy = () => import('fs');\n",
      'a/t.ts': '',
    });
    expect(readPackageImports(root, ['a']).get('a/x.ts')).toEqual(['fs', 'node:path', 'zod']);
    expect(readPackageImports(root, ['a']).get('a/t.ts')).toEqual([]);
  });

  it('finds every cycle, a type-only one and a self-import included, as a closed path', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
      ['f.ts', ['g.ts']],
      ['g.ts', ['f.ts']],
    ]);
    expect(importCycles(graph)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
      ['f.ts', 'g.ts', 'f.ts'],
    ]);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads a type-only cycle from source', () => {
    const root = project({
      'p/log.ts': "import type { L } from './layer.js';\nexport type K = string;\n",
      'p/layer.ts': "import type { K } from './log.js';\nexport type L = K;\n",
    });
    expect(importCycles(readImportGraph(root, ['p']))).toEqual([['p/layer.ts', 'p/log.ts', 'p/layer.ts']]);
  });
});
