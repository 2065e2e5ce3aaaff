import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{pipeline,scenarios,guard,backends,analysis,notebooks}/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
