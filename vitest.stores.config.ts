// Vitest config of `pnpm test:stores`: the heavy Python stores in venvs of their own (`pnpm stores install --all`) and
// the servers they need (PostgreSQL, Redis), each file in its own module graph with its own HOME and cache.
import { configDefaults, defineConfig } from 'vitest/config';
import { CACHE, STORE_TEST_FILES } from './vitest.config.js';

export default defineConfig({
  test: {
    // pipeline/test-support/run-tmpdir.ts: every temporary directory of the run is made in one, removed at its end.
    globalSetup: ['pipeline/test-support/run-tmpdir.ts'],
    setupFiles: ['pipeline/test-support/isolated-home.ts'],
    include: STORE_TEST_FILES,
    exclude: [...configDefaults.exclude, ...CACHE],
    passWithNoTests: true,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
