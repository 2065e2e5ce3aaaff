// Vitest config of `pnpm test:servers` (with the Neo4j suite): the Python stores and embedders behind the process
// adapter, each file in its own module graph, with its own HOME and cache as in the core suite.
import { configDefaults, defineConfig } from 'vitest/config';
import { CACHE, SERVER_TEST_FILES } from './vitest.config.js';

export default defineConfig({
  test: {
    // pipeline/test-support/run-tmpdir.ts: every temporary directory of the run is made in one, removed at its end.
    globalSetup: ['pipeline/test-support/run-tmpdir.ts'],
    setupFiles: ['pipeline/test-support/isolated-home.ts'],
    include: SERVER_TEST_FILES.filter((pattern) => !pattern.startsWith('backends/neo4j')),
    exclude: [...configDefaults.exclude, ...CACHE],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
