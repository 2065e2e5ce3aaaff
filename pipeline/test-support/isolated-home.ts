// Vitest setup file (every test file, both configs): a private HOME, XDG directories and response cache per test file.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * What a library may write when a test forgets a directory: mem0 falls back to `$HOME/.mem0`, other tools to the
 * XDG directories, `pnpm eval` to `$STALEBENCH_CACHE_DIR` (else `.stalebench-cache` in the clone). Each test file
 * gets its own, so no test writes into the user's home or the clone, and none sees what another process (a second
 * `pnpm eval`, another test file) writes there. MEM0_DIR stays unset: a client opened without ours would write to
 * this HOME, where backends/mem0-backend.test.ts looks for it.
 */
export const ISOLATED_ENV_KEYS = [
  'HOME',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'STALEBENCH_CACHE_DIR',
] as const;

const root = realpathSync(mkdtempSync(join(tmpdir(), 'stalebench-test-home-')));
const home = join(root, 'home');
const directories: Record<(typeof ISOLATED_ENV_KEYS)[number], string> = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  STALEBENCH_CACHE_DIR: join(root, 'response-cache'),
};
for (const key of ISOLATED_ENV_KEYS) {
  mkdirSync(directories[key], { recursive: true });
  process.env[key] = directories[key];
}
delete process.env.MEM0_DIR;

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
