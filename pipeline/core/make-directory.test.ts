import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory } from './make-directory.js';

const root = mkdtempSync(join(tmpdir(), 'make-directory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('makeDirectory', () => {
  it('makes a directory and its missing parents, and accepts one that exists', () => {
    const deep = join(root, 'a', 'b', 'c');
    makeDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    makeDirectory(deep);
    makeDirectory(root);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('throws through a file on the way, making nothing', () => {
    writeFileSync(join(root, 'file'), 'x');
    expect(() => makeDirectory(join(root, 'file', 'x', 'y'))).toThrow(
      /\(directory\): cannot be created: (ENOTDIR|EEXIST)/,
    );
    expect(existsSync(join(root, 'file', 'x'))).toBe(false);
  });

  it('throws for a file where the directory should be (pnpm integrity -o FILE), naming it', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    expect(() => makeDirectory(file)).toThrow(/invalid .*a-file[\s\S]*\(directory\): is a file, not a directory/);
    expect(statSync(file).isFile()).toBe(true);
  });

  // The case Node's recursive mkdir never returns from (it loops, deaf to signals): a path under /proc.
  it.skipIf(!existsSync('/proc/self'))('throws at once under /proc instead of looping', () => {
    expect(() => makeDirectory('/proc/stalebench-no-such/run')).toThrow(
      /invalid \/proc\/stalebench-no-such\/run[\s\S]*cannot be created: ENOENT: no such file or directory, mkdir '\/proc\/stalebench-no-such'/,
    );
  });
});
