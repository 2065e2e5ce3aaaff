// Vitest config of `pnpm test`: every test file runs with its own HOME, XDG directories and response cache.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // pipeline/test-support/isolated-home.ts: no test writes into the user's home or the clone's .stalebench-cache.
    setupFiles: ['pipeline/test-support/isolated-home.ts'],
  },
});
