import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingStoreEnv, STORE_ENVS } from '../../backends/python/store-envs.js';
import { main } from './stores-command.js';

const scratch = mkdtempSync(join(tmpdir(), 'stores-command-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(
    argv,
    (text) => out.push(text),
    (text) => err.push(text),
    scratch,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('pnpm stores', () => {
  it('refuses an unknown environment in one line naming the known ones, and installs nothing', () => {
    const result = run(['install', 'no-such-store']);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^error: unknown store environment no-such-store; available: /);
    expect(() => missingStoreEnv(scratch, 'no-such-store')).toThrow(/unknown store environment "no-such-store"/);
  });

  it('needs either environments or --all, not both and not neither', () => {
    expect(run(['install']).err).toMatch(/^error: give the environments to install, or --all/);
    expect(run(['install', '--all', 'x']).code).toBe(1);
    expect(run(['remove', 'x']).err).toMatch(/^error: unknown verb "remove"/);
  });

  it('lists every environment as not installed in an empty checkout, naming the install command when asked', () => {
    const result = run(['list']);
    expect(result.code).toBe(0);
    const ids = Object.keys(STORE_ENVS);
    expect(result.out.split('\n').filter(Boolean)).toHaveLength(ids.length);
    for (const id of ids) {
      expect(result.out).toMatch(new RegExp(`^${id} +not installed`, 'm'));
      expect(missingStoreEnv(scratch, id)).toMatch(`run pnpm stores install ${id} (`);
    }
  });
});
