import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: integration tests drive child processes, and a loaded machine must not turn a slow run into a failure.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most integration tests wait on child processes and loopback servers, not the CPU: three files at a time
    // on two cores roughly halves the wall time without starving them.
    maxWorkers: 3,
    env: { NO_COLOR: '1' },
    globalSetup: ['test/helpers/temp-root.ts'],
  },
});
