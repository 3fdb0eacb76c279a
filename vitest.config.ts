import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/yieldBetweenTests.ts'],
    // A timeout catches a hang, not slowness: the agents' smoke tests train and play for real and
    // take twice as long when other work shares the two cores.
    testTimeout: 120_000,
    // tfjs tests share one backend per worker; two workers match the two-core target machine.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
