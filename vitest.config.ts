import { defineConfig } from 'vitest/config';

/**
 * The test files `npm run test:unit` leaves out (`vitest run --mode unit`): those that start
 * Slurm or Chromium, train or play an agent, or run a chapter script or the command line on one,
 * and the few statistics files that simulate for tens of seconds. `npm test` runs every file.
 */
const SYSTEM = [
  'backend-build',
  'cli-errors',
  'eval-experiments',
  'exercises-agent',
  'exp-all',
  'experiments-agent',
  'files-and-disks',
  'gym-canary',
  'gym-cli',
  'gym-load',
  'gym-sandbox',
  'measurement-log',
  'package',
  'progress',
  'readers-bounds',
  'readers-reliability',
  'report-page',
  'report-page-paths',
  'results-files',
  'results-out',
  'script-help',
  'script-output',
  'study-dev-split',
  'study-leases',
  'study-multinode',
  'study-plan',
  'study-run',
  'study-scheduler-input',
  'study-slurm',
  'study-untrusted',
  'system-setup',
  'train-cli',
  'train-parallel',
  'train-run',
  'train-run-folder',
  'untrusted-reads',
  'view',
];

/**
 * The fast target's files share a module graph per worker (tfjs and the kernels load once a
 * worker, not once a file), except these, which change what their graph holds (the backend, the
 * installed kernels, `node:fs` itself): `--mode unit-globals` runs them after, each in its own.
 */
const CHANGES_GLOBALS = ['agent-backend', 'agent-kernels', 'study-no-hardlinks'];

const testFile = (name: string) => `test/${name}.test.ts`;

export default defineConfig(({ mode }) => ({
  test: {
    include: mode === 'unit-globals' ? CHANGES_GLOBALS.map(testFile) : ['test/**/*.test.ts'],
    exclude: mode === 'unit' ? [...SYSTEM, ...CHANGES_GLOBALS].map(testFile) : [],
    setupFiles: ['test/support/yieldBetweenTests.ts'],
    // A timeout catches a hang, not slowness: the agents' smoke tests train and play for real and
    // take twice as long when other work shares the two cores.
    testTimeout: 120_000,
    // tfjs tests share one backend per worker; two workers match the two-core target machine.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: mode !== 'unit' } },
  },
}));
