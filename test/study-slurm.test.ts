import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliChild } from './support/child.ts';
import { jobState, readPlan, writePlan } from '../study/index.ts';
import { startSlurm, waitForQueue, type SlurmCluster } from './support/slurm.ts';
import { expectSameReport } from './support/study-report.ts';

const root = mkdtempSync(join(tmpdir(), 'tinyagent-study-slurm-'));
let cluster: SlurmCluster | undefined;

const run = cliChild;

// A real single-node Slurm (slurmctld, slurmd, munged on localhost), not a mock. When the
// packages are missing, beforeAll fails with one line naming them: the test is not skipped.
describe('a seed study on a real Slurm cluster', () => {
  beforeAll(async () => {
    cluster = await startSlurm({ cpus: 2 });
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('runs a 4-seed smoke study as two job arrays, and its report is byte-identical to study run --jobs 2', async () => {
    const started = performance.now();
    const onSlurm = join(root, 'slurm');
    const here = join(root, 'local');
    // Steps 0 and 80 only: 4 trainings and 20 evaluations, so that the test stays near two minutes.
    for (const dir of [onSlurm, here])
      writePlan(dir, { recipe: 'smoke', seeds: [0, 1, 2, 3], evalSeed: 1, steps: [0, 80] });
    const submitted = await run(
      ['study', 'slurm', onSlurm, '--cpus-per-task', '1', '--submit'],
      cluster!.env,
    );
    expect(submitted.stderr).toBe('');
    expect(submitted.status).toBe(0);
    expect(submitted.stdout).toMatch(
      /^submitted training array (\d+) and evaluation array (\d+) \(afterok:\1\)/,
    );
    // Run the same plan here meanwhile: Slurm has the node's two CPUs, this the machine's.
    const local = await run(['study', 'run', here, '--jobs', '2']);
    expect(local.status).toBe(0);
    expect(await waitForQueue(cluster!.env, 600_000)).toBe(true);
    const plan = readPlan(onSlurm);
    expect(plan.jobs.filter((job) => jobState(plan, job).state !== 'done').map((job) => job.index)).toEqual(
      [],
    );
    for (const dir of [onSlurm, here]) expect((await run(['study', 'report', dir])).status).toBe(0);
    expectSameReport(onSlurm, here);
    // every array task wrote its log into the study folder
    expect(
      spawnSync('sh', ['-c', `ls ${join(onSlurm, 'logs')} | grep -c '^slurm-'`], {
        encoding: 'utf8',
      }).stdout.trim(),
    ).toBe('24');
    process.stderr.write(
      `slurm test: ${((performance.now() - started) / 1000).toFixed(1)} s for the study on Slurm and here\n`,
    );
  }, 900_000);
});
