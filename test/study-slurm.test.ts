import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliChild } from './support/child.ts';
import { jobState, readPlan } from '../study/index.ts';
import { writePlan } from '../study/plan.ts';
import type { SubmittedArray } from '../study/scheduler.ts';
import { startSlurm, waitForQueue, type SlurmCluster } from '../bench/slurm.ts';
import { expectSameReport } from './support/study-report.ts';

const root = mkdtempSync(join(tmpdir(), 'tinyagent-study-slurm-'));
const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let cluster: SlurmCluster | undefined;

const run = cliChild;
/** A Slurm client command against the test's cluster. */
const slurm = async (command: string, args: string[]) =>
  (await execFileAsync(command, args, { env: cluster!.env, encoding: 'utf8' })).stdout.trim();
/** `scontrol show job -o ID`: one line of `Key=Value` fields per job record (a pending array is one record). */
const showJob = (id: string) => slurm('scontrol', ['show', 'job', '-o', id]);

// Steps 0 and 80 only: 4 trainings and 20 evaluations, so that each study stays near a minute.
const PLAN = { recipe: 'smoke', seeds: [0, 1, 2, 3], evalSeed: 1, steps: [0, 80] };
let here: Promise<string>;

/**
 * Plans the study in `<root>/<name>`, submits it with `study slurm --submit --json` and `flags`
 * while a job holding the node's two CPUs keeps every array pending, lets `inspect` read the
 * queue, frees the node, waits for the queue to empty and checks that every job is done and
 * that the report is byte-identical (generatedAt aside) to `study run --jobs 2` of the same plan.
 */
async function studyOnSlurm(
  name: string,
  flags: string[],
  inspect: (arrays: SubmittedArray[]) => Promise<void>,
): Promise<string> {
  const dir = join(root, name);
  writePlan(dir, PLAN);
  const blocker = await slurm('sbatch', [
    '--parsable',
    '--cpus-per-task=2',
    '--mem=100M',
    '--output=/dev/null',
    '--wrap=sleep 600',
  ]);
  try {
    const submitted = await run(['study', 'slurm', dir, ...flags, '--submit', '--json'], cluster!.env);
    expect(submitted.stderr).toBe('');
    expect(submitted.status).toBe(0);
    await inspect(JSON.parse(submitted.stdout) as SubmittedArray[]);
  } finally {
    await slurm('scancel', [blocker]);
  }
  expect(await waitForQueue(cluster!.env, 600_000)).toBe(true);
  const plan = readPlan(dir);
  expect(plan.jobs.filter((job) => jobState(plan, job).state !== 'done').map((job) => job.index)).toEqual([]);
  expect((await run(['study', 'report', dir])).status).toBe(0);
  expectSameReport(dir, await here);
  // every array task wrote its log into the study folder
  expect(readdirSync(join(dir, 'logs')).filter((file) => file.startsWith('slurm-'))).toHaveLength(24);
  return dir;
}

// A real single-node Slurm (slurmctld, slurmd, munged on localhost), not a mock. When the
// packages are missing, beforeAll fails with one line naming them: the test is not skipped.
describe('a seed study on a real Slurm cluster', () => {
  beforeAll(async () => {
    cluster = await startSlurm({ cpus: 2 });
    // The same plan run here, meanwhile: Slurm has the node's two CPUs, this the machine's.
    const local = join(root, 'local');
    writePlan(local, PLAN);
    here = (async () => {
      expect((await run(['study', 'run', local, '--jobs', '2'])).status).toBe(0);
      expect((await run(['study', 'report', local])).status).toBe(0);
      return local;
    })();
  }, 60_000);
  afterAll(async () => {
    // A task left running by a failed test would outlive the daemons (its slurmstepd): cancelled first.
    if (cluster !== undefined)
      await slurm('scancel', [`--user=${userInfo().username}`]).catch(() => undefined);
    await sleep(1000);
    cluster?.stop();
  });
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it("per seed (the default): each seed's evaluations wait on its own training's task; the report is byte-identical to study run --jobs 2", async () => {
    const started = performance.now();
    const dir = await studyOnSlurm('per-seed', ['--eval-cpus', '1'], async (arrays) => {
      const train = arrays[0]!;
      expect(train).toMatchObject({ script: 'train', indices: [0, 1, 2, 3], dependency: null });
      expect(arrays.slice(1).map((array) => array.seed)).toEqual([0, 1, 2, 3]);
      for (const array of arrays.slice(1)) {
        expect(array.dependency).toBe(`afterok:${train.id}_${array.seed}`);
        // What Slurm holds: the dependency on that one task, not yet met, and the study's requeue.
        const record = await showJob(array.id);
        expect(record).toContain(`Dependency=afterok:${train.id}_${array.seed}(unfulfilled)`);
        expect(record).toMatch(/ Requeue=1 /);
        expect(record).toContain(`ArrayTaskId=${array.indices[0]}-${array.indices.at(-1)}`);
      }
      expect(await showJob(train.id)).toMatch(/ Requeue=1 /);
    });
    // Submitted again once done: nothing is left to send.
    const again = await run(['study', 'slurm', dir, '--submit'], cluster!.env);
    expect(again.stdout).toBe(`${dir}: every job is done (24 jobs); nothing submitted\n`);
    process.stderr.write(`slurm test (per seed): ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }, 900_000);

  it('--dependency array: one evaluation array after the whole training array; the same report', async () => {
    const started = performance.now();
    await studyOnSlurm('array', ['--dependency', 'array'], async (arrays) => {
      expect(arrays).toHaveLength(2);
      const [train, evaluations] = arrays as [SubmittedArray, SubmittedArray];
      expect(evaluations.dependency).toBe(`afterok:${train.id}`);
      expect(await showJob(evaluations.id)).toContain(`Dependency=afterok:${train.id}_*(unfulfilled)`);
    });
    process.stderr.write(`slurm test (array): ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }, 900_000);

  it('an array task whose job another live lease holds (exit 75) retries until the holder lets go, and ends done', async () => {
    const dir = join(root, 'held');
    writePlan(dir, { ...PLAN, seeds: [0], steps: [0] });
    const plan = readPlan(dir);
    const training = plan.jobs[0]!;
    const holder = spawn(process.execPath, [
      '--import',
      'tsx',
      join(import.meta.dirname, 'support', 'lease-holder.ts'),
      dir,
      training.id,
      '60',
    ]);
    children.push(holder);
    let said = '';
    holder.stdout.on('data', (chunk) => (said += String(chunk)));
    for (let i = 0; i < 600 && !said.includes('\n'); i += 1) await sleep(50);
    expect(said).toBe('held\n');
    const submitted = await run(['study', 'slurm', dir, '--no-requeue', '--submit', '--json'], cluster!.env);
    expect(submitted.status).toBe(0);
    const [train] = JSON.parse(submitted.stdout) as SubmittedArray[];
    const log = join(dir, 'logs', `slurm-train-${train!.id}_0.out`);
    const retried = /held by another live lease \(exit 75\); try 1 of 36, again in 5 s/;
    const readLog = () => {
      try {
        return readFileSync(log, 'utf8');
      } catch {
        return '';
      }
    };
    for (let i = 0; i < 240 && !retried.test(readLog()); i += 1) await sleep(250);
    expect(readLog()).toMatch(retried);
    // The task is still in the queue, retrying: the holder now ends (its pid gone, its lease stale at once).
    expect(await showJob(train!.id)).toMatch(/JobState=RUNNING .* Requeue=0 /);
    holder.kill('SIGKILL');
    expect(await waitForQueue(cluster!.env, 300_000)).toBe(true);
    expect(await showJob(train!.id)).toMatch(/JobState=COMPLETED .*ExitCode=0:0/);
    expect(readLog()).toContain(`job 0 (${training.id}) done`);
    expect(plan.jobs.map((job) => jobState(plan, job).state)).toEqual(plan.jobs.map(() => 'done'));
  }, 600_000);
});
