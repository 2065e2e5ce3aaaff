// isEntryPoint: a command file started from a path with spaces, through a symlink, or not at all.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isEntryPoint } from './entry-point.js';

describe('isEntryPoint', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'stalebench-entry-')), 'My Projects', 'stalebench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'cli.ts');
  writeFileSync(file, '');
  const url = pathToFileURL(file).href;

  it('matches its own file under a directory with a space (where a plain file:// prefix does not)', () => {
    expect(url).toContain('My%20Projects');
    expect(url === `file://${file}`).toBe(false);
    expect(isEntryPoint(url, file)).toBe(true);
  });

  it('matches through a symlink, and not another file, a missing one or no script at all', () => {
    const link = join(dir, '..', 'link.ts');
    symlinkSync(file, link);
    expect(isEntryPoint(url, link)).toBe(true);
    writeFileSync(join(dir, 'other.ts'), '');
    expect(isEntryPoint(url, join(dir, 'other.ts'))).toBe(false);
    expect(isEntryPoint(url, join(dir, 'absent.ts'))).toBe(false);
    expect(isEntryPoint(url, undefined)).toBe(false);
  });
});
