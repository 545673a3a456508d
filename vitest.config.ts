import { defineConfig } from 'vitest/config';

/** One run, one PostgreSQL (test/global-setup.ts); each e2e file makes its own database on it. */
export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    maxWorkers: 2,
    // A bound on a test that hangs, not a speed target (those are benchmarks): generous, so that the suite
    // passes on a 2-core machine running another suite beside it, where a test can take several times longer.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          exclude: ['**/*.integration.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts', '**/*.integration.test.ts'],
          setupFiles: ['./test/failure-logs.setup.ts'],
          exclude: ['**/node_modules/**', 'test/bench/**'],
        },
      },
    ],
  },
});
