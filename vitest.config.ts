// Vitest config of `pnpm test` (the core suite): every test file runs with its own HOME, XDG directories and response
// cache. The slow suites against real servers and third-party stores run in `pnpm test:servers`
// (vitest.servers.config.ts and the Neo4j config), which CI runs too.
import { configDefaults, defineConfig } from 'vitest/config';

/** Test files of `pnpm test:servers`: real Neo4j, the Python stores and embedders behind the process adapter. */
export const SERVER_TEST_FILES = [
  'backends/neo4j*',
  'pipeline/suites/integrity/targets/python-targets.test.ts',
  'backends/inspeximus-backend*.test.ts',
  'backends/python/**/*.test.ts',
  'pipeline/inspeximus.e2e.test.ts',
  'pipeline/suites/frontdoor/harness/real-embedder.test.ts',
  'pipeline/real-embedder-eval.test.ts',
  'pipeline/cli/embedder-serve-command.test.ts',
];

/** Test files of `pnpm test:stores`: the heavy Python stores, each in a venv of its own (backends/python/store-envs.ts). */
export const STORE_TEST_FILES = ['**/*.stores.test.ts'];

/** Never tests of ours: the git-ignored caches hold third-party packages (the store venvs ship their own tests). */
export const CACHE = ['.cache/**', '**/.cache/**', '.stalebench-cache/**', 'runs/**'];

/** Test files that replace modules (vi.mock) or the environment: each runs in a fresh module graph. */
const ISOLATED_TEST_FILES = [
  'pipeline/disk-failure.e2e.test.ts',
  'pipeline/suites/follow-ups/follow-up.e2e.test.ts',
  'backends/test-support/neo4j-global-setup.test.ts',
];

export default defineConfig({
  test: {
    // pipeline/test-support/isolated-home.ts: no test writes into the user's home or the clone's .stalebench-cache.
    // pipeline/test-support/run-tmpdir.ts: every temporary directory of the run is made in one, removed at its end.
    globalSetup: ['pipeline/test-support/run-tmpdir.ts'],
    setupFiles: ['pipeline/test-support/isolated-home.ts'],
    // Vitest's default on a two-core machine is one worker (cores − 1); most of the core suite's time is spent in
    // child processes (the CLI under tsx, local servers), so a second worker uses the idle core (issue #32 item 3:
    // measure with `time pnpm test` on a quiet machine, never in a test).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED_TEST_FILES, exclude: [...configDefaults.exclude, ...CACHE] },
      },
      {
        extends: true,
        // The rest share one module graph per worker (modules are imported once, not once per file): the setup file
        // still gives each file its own HOME and cache, and no module of ours keeps state between files.
        test: {
          name: 'core',
          exclude: [
            ...configDefaults.exclude,
            ...CACHE,
            ...ISOLATED_TEST_FILES,
            ...SERVER_TEST_FILES,
            ...STORE_TEST_FILES,
          ],
          isolate: false,
        },
      },
    ],
  },
});
