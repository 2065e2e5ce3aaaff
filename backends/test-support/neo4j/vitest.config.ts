// Vitest config for the Neo4j tests: `vitest run backends/neo4j -c backends/test-support/neo4j/vitest.config.ts`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Vitest 4 has no `--globalSetup` flag; this config adds the server setup to the `pnpm test` timeouts. */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    // pipeline/test-support/run-tmpdir.ts first: the run's temporary directories in one, removed after the server
    // has stopped (global teardowns run in reverse order).
    globalSetup: ['pipeline/test-support/run-tmpdir.ts', 'backends/test-support/neo4j-global-setup.ts'],
    // As the root vitest.config.ts: each test file gets its own HOME, XDG directories and response cache (Maven and
    // the server, started by the global setup above, keep the real HOME and its ~/.m2).
    setupFiles: ['pipeline/test-support/isolated-home.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Server-backed test files wipe the one shared database: run files one at a time.
    fileParallelism: false,
  },
});
