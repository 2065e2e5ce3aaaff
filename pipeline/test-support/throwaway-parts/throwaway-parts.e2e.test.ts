// The "add a …" tests' own claim that each added part type-checks with the rest of the code (its ids join the unions of
// ArmId, the spec, key and cell types, the experiment and table registries without any other edit), made once for all
// of them: every part in one copy of the source tree, one `tsc --noEmit` (a full check costs 17–30 s; one per test
// was a fifth of `pnpm test`, issue #32 item 3).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySourceTree, type SourceCopy } from '../source-copy.js';
import { THROWAWAY_PARTS } from './index.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

describe('every throwaway part, in one copy of the source tree', () => {
  let copy: SourceCopy;

  beforeAll(() => {
    copy = copySourceTree();
    for (const { part } of THROWAWAY_PARTS) copy.addPart(part);
  });

  afterAll(() => copy?.remove());

  it('is run by its own test, adds files no other part adds, and files the checkout does not have', () => {
    const paths = THROWAWAY_PARTS.flatMap(({ part }) => part.files.map((file) => file.path));
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths) {
      expect(existsSync(join(ROOT, path)), path).toBe(false);
      expect(existsSync(join(copy.dir, path)), path).toBe(true);
    }
    for (const { test } of THROWAWAY_PARTS) {
      const text = readFileSync(join(ROOT, test), 'utf8');
      expect(text, test).toMatch(/from '[./]+\/(pipeline\/)?test-support\/throwaway-parts\/[\w-]+\.js'/);
      expect(text, test).toContain('copy.addPart(');
    }
  });

  it('type-checks with the rest of the code: each part joins the registries and their types with no other edit', async () => {
    const result = await copy.typecheck();
    const named = THROWAWAY_PARTS.filter(({ part }) =>
      part.files.some((file) => result.stdout.includes(file.path)),
    ).map(({ part }) => part.name);
    expect(
      result.code,
      `exit ${result.code}; parts named: ${named.join(', ')}\n${result.stdout}\n${result.stderr}`,
    ).toBe(0);
  }, 240_000);
});
