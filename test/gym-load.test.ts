import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearSandboxCache, makeTasks, trainingHarness } from '../gym/index.ts';
import { runScripted } from '../gym/policies.ts';
import { checkpointChecksum, initBackend } from '../agent/index.ts';
import { defaultRLConfig, trainSnapshots } from '../train/index.ts';
import { openRunLog } from '../lib/log.ts';
import { TINY_TRAINING } from './support/cli.ts';

/**
 * The sandbox's verdict must not depend on how busy the machine is. These tests hold both cores
 * with four busy-loop processes and check that nothing that is scored changes.
 */
let busy: ChildProcess[] = [];
let workDir: string;

function startBusyLoops(count: number): void {
  busy = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
}

function stopBusyLoops(): void {
  for (const child of busy) child.kill('SIGKILL');
  busy = [];
}

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  workDir = mkdtempSync(join(tmpdir(), 'tinyagent-load-'));
});

afterAll(() => {
  stopBusyLoops();
  rmSync(workDir, { recursive: true, force: true });
});

describe('under load', () => {
  it('the oracle scores exactly 1.0 in 20 consecutive cold runs while four busy loops hold both cores', async () => {
    startBusyLoops(4);
    try {
      const tasks = makeTasks('all');
      for (let run = 0; run < 20; run += 1) {
        // Let the test runner's messages through between runs: a loaded machine makes each run slow.
        await new Promise((resolve) => setImmediate(resolve));
        clearSandboxCache();
        const result = runScripted('oracle', trainingHarness(), tasks, { episodesPerTask: 2, seed: run });
        expect(result.successRate, `run ${run}`).toBe(1);
        expect(result.meanReward, `run ${run}`).toBe(1);
      }
    } finally {
      stopBusyLoops();
    }
  });

  it('a short training run gives the same checksums with and without busy loops beside it', async () => {
    const tiny = { ...TINY_TRAINING, bcSteps: 2, steps: 2, evalEvery: 1, parallel: true };
    const train = async (name: string) => {
      clearSandboxCache();
      const runDir = join(workDir, name);
      const summary = await trainSnapshots(defaultRLConfig(tiny), {
        runDir,
        log: openRunLog(runDir, { quiet: true }),
      });
      return summary.snapshots.map((dir) => checkpointChecksum(dir));
    };
    const quiet = await train('quiet');
    startBusyLoops(4);
    let loaded: string[];
    try {
      loaded = await train('loaded');
    } finally {
      stopBusyLoops();
    }
    expect(loaded).toEqual(quiet);
  });
});
