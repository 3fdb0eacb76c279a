import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLease } from '../study/leases.ts';
import { jobState, readPlan, type Plan } from '../study/index.ts';
import { writePlan, type Job } from '../study/plan.ts';
import { jobDir } from '../study/output.ts';
import { waitForQueue } from '../bench/slurm.ts';
import { cliChild } from './support/child.ts';
import { showJob, startMultiNodeSlurm, type MultiNodeCluster } from './support/slurm-multinode.ts';
import { expectSameReport } from './support/study-report.ts';

// A real Slurm cluster of two compute nodes on this machine, each a slurmd in its own network,
// UTS and PID namespace (test/support/slurm-multinode.ts), all on one file system. A smoke
// study is submitted as the arrays; a node is killed, or frozen and thawed, while it trains.
// When a package is missing, beforeAll fails with one line naming it: the test is not skipped.
const root = mkdtempSync(join(tmpdir(), 'tinyagent-study-multinode-'));
const reference = join(root, 'reference');
/** 2 trainings and 10 evaluations: small, so that the three studies and two node failures fit CI. */
const PLAN = { recipe: 'smoke', seeds: [0, 1], evalSeed: 1, steps: [0, 80] };
let cluster: MultiNodeCluster | undefined;
/** The reference study's run and report (started in beforeAll). */
let referenceReady: Promise<void> | undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (since: number) => (performance.now() - since) / 1000;

/** Polls `check` every 100 ms until it returns a value; fails naming `what` after `timeoutMs`. */
async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => T | undefined | Promise<T | undefined>,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(100);
  }
}

/** Plans the smoke study in `dir` and submits it as the two arrays; returns the plan and the training array's id. */
async function submit(dir: string): Promise<{ plan: Plan; trainArray: string }> {
  writePlan(dir, PLAN);
  const submitted = await cliChild(['study', 'slurm', dir, '--submit'], cluster!.env);
  expect(submitted.stderr).toBe('');
  expect(submitted.status).toBe(0);
  // Only the training array's id is read: how the evaluation arrays are described may change.
  const train = /^submitted .*training array (\d+)/.exec(submitted.stdout);
  expect(train, submitted.stdout).not.toBeNull();
  return { plan: readPlan(dir), trainArray: train![1]! };
}

/** The first training whose lease a node holds (it runs there now), and that node. */
const trainingHeldByNode = (plan: Plan) =>
  until('a node to hold the lease of a training', 120_000, () => {
    for (const job of plan.jobs.filter((candidate) => candidate.kind === 'train')) {
      const read = readLease(plan.dir, job.id);
      const node = cluster!.nodes.find(
        (one) => read !== undefined && 'lease' in read && read.lease.holder.host === one.name,
      );
      if (node !== undefined) return { job, node };
    }
    return undefined;
  });

/** Where each job ran: the host its timing.json records. */
const hostOf = (plan: Plan, job: Job) =>
  (JSON.parse(readFileSync(join(jobDir(plan, job), 'timing.json'), 'utf8')) as { host: string }).host;

/** The array tasks' logs (a requeued task appends to its log: JobFileAppend=1), concatenated. */
const slurmLogs = (dir: string) =>
  readdirSync(join(dir, 'logs'))
    .filter((name) => name.startsWith('slurm-'))
    .map((name) => readFileSync(join(dir, 'logs', name), 'utf8'))
    .join('\n');

/**
 * The study finished with no job completed twice, nothing half-written left, and the report of
 * `study run --jobs 2`: every job done, each `job I (ID) done` line (the one `study run --index`
 * prints after renaming the job's output into place) once in the logs and `extra` outputs.
 */
async function expectFinished(plan: Plan, extra: string[] = []): Promise<void> {
  expect(plan.jobs.filter((job) => jobState(plan, job).state !== 'done').map((job) => job.index)).toEqual([]);
  const text = [slurmLogs(plan.dir), ...extra].join('\n');
  for (const job of plan.jobs)
    expect(
      text.split('\n').filter((line) => line === `job ${job.index} (${job.id}) done`).length,
      `done lines of job ${job.index}`,
    ).toBe(1);
  expect(readdirSync(join(plan.dir, 'jobs')).filter((name) => name.startsWith('.'))).toEqual([]);
  expect(readdirSync(join(plan.dir, 'claims')).filter((name) => !name.startsWith('.'))).toEqual([]);
  expect((await cliChild(['study', 'report', plan.dir])).status).toBe(0);
  await referenceReady;
  expectSameReport(plan.dir, reference);
}

describe('a seed study on a real two-node Slurm cluster, with a node killed and a node frozen', () => {
  beforeAll(async () => {
    const started = performance.now();
    cluster = await startMultiNodeSlurm({ nodes: 2 });
    process.stderr.write(`multinode: cluster of 2 nodes up in ${seconds(started).toFixed(1)} s\n`);
    // Run here while the first study runs on the cluster; each comparison awaits it.
    referenceReady = (async () => {
      const before = performance.now();
      writePlan(reference, PLAN);
      const local = await cliChild(['study', 'run', reference, '--jobs', '2']);
      expect(local.status).toBe(0);
      expect((await cliChild(['study', 'report', reference])).status).toBe(0);
      process.stderr.write(`multinode: reference study run --jobs 2 in ${seconds(before).toFixed(1)} s\n`);
    })();
    referenceReady.catch(() => {});
  }, 60_000);
  afterAll(async () => {
    await referenceReady?.catch(() => {});
    cluster?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('spreads the jobs over both nodes, each node its own host, and reports as study run --jobs 2', async () => {
    const started = performance.now();
    const { plan } = await submit(join(root, 'spread'));
    expect(await waitForQueue(cluster!.env, 300_000)).toBe(true);
    await expectFinished(plan);
    const hosts = new Set(plan.jobs.map((job) => hostOf(plan, job)));
    expect([...hosts].sort()).toEqual(cluster!.nodes.map((node) => node.name).sort());
    process.stderr.write(`multinode: spread study in ${seconds(started).toFixed(1)} s\n`);
  }, 400_000);

  it('a node killed during a training: Slurm sets it DOWN and requeues the task, which takes over the stale lease', async () => {
    const started = performance.now();
    const { plan, trainArray } = await submit(join(root, 'killed'));
    const { job, node } = await trainingHeldByNode(plan);
    const survivor = cluster!.nodes.find((other) => other !== node)!;
    try {
      await cluster!.kill(node);
      const killed = performance.now();
      // Killed during the training, not after it: the job has no output yet.
      expect(jobState(plan, job).state).not.toBe('done');
      await until(`${node.name} to be DOWN`, 120_000, async () =>
        /^down/.test(await cluster!.state(node)) ? true : undefined,
      );
      const down = seconds(killed);
      expect(await waitForQueue(cluster!.env, 600_000)).toBe(true);
      const task = await showJob(cluster!.env, `${trainArray}_${job.index}`);
      expect(task.get('JobState')).toBe('COMPLETED');
      expect(task.get('Restarts')).toBe('1');
      expect(task.get('NodeList')).toBe(survivor.name);
      expect(readFileSync(join(cluster!.dir, 'log', 'slurmctld.log'), 'utf8')).toMatch(
        new RegExp(
          `requeue job JobId=${trainArray}_${job.index}\\(\\d+\\) due to failure of node ${node.name}`,
        ),
      );
      // The requeued task watched the dead node's lease go unrenewed for the jobs' timeout (10 s).
      const log = readFileSync(join(plan.dir, 'logs', `slurm-train-${trainArray}_${job.index}.out`), 'utf8');
      expect(log).toMatch(
        new RegExp(
          `took over the claim \\S+${job.id}\\.lock of process \\d+ on ${node.name} .*not renewed for 10 s`,
        ),
      );
      expect(hostOf(plan, job)).toBe(survivor.name);
      await expectFinished(plan);
      process.stderr.write(
        `multinode: killed-node study in ${seconds(started).toFixed(1)} s (${node.name} DOWN ${down.toFixed(1)} s after the kill)\n`,
      );
    } finally {
      if (node.pid === 0) await cluster!.restart(node);
    }
  }, 900_000);

  it('a frozen node that comes back after its lease was taken over discards only its own attempt, exits 75, its task tries again and completes, and the study finishes with no second submission', async () => {
    const started = performance.now();
    const { plan, trainArray } = await submit(join(root, 'frozen'));
    const { job, node } = await trainingHeldByNode(plan);
    expect(cluster!.freeze(node)).toBeGreaterThan(0);
    const frozen = performance.now();
    let thawed = false;
    try {
      // This host takes the job over once it has watched the frozen node's lease unrenewed for 5 s.
      const takeover = cliChild(
        ['study', 'run', plan.dir, '--index', String(job.index), '--lease-timeout', '5'],
        cluster!.env,
      );
      await until('this host to take the lease over', 60_000, () => {
        const read = readLease(plan.dir, job.id);
        return read !== undefined && 'lease' in read && read.lease.holder.host === hostname()
          ? true
          : undefined;
      });
      // Thawed before slurmctld gives up on the node (SlurmdTimeout): it comes back, its job still running.
      cluster!.thaw(node);
      thawed = true;
      const frozenFor = seconds(frozen);
      const here = await takeover;
      expect(here.stderr).toMatch(
        new RegExp(
          `took over the claim \\S+${job.id}\\.lock of process \\d+ on ${node.name} .*not renewed for 5 s`,
        ),
      );
      expect(here.stdout).toBe(`job ${job.index} (${job.id}) done\n`);
      expect(here.status).toBe(0);
      expect(await cluster!.state(node)).not.toMatch(/^down/);
      expect(await waitForQueue(cluster!.env, 600_000)).toBe(true);
      // The node's attempt found its lease taken at its end: it removed its own folder and exited 75.
      expect(slurmLogs(plan.dir)).toMatch(
        // Taken over by the live process, or removed by a takeover that has ended by then.
        new RegExp(
          `job ${job.index} \\(${job.id}\\): its claim \\S+ was (taken over|removed) by [^;]*; this attempt's output was discarded`,
        ),
      );
      const task = await showJob(cluster!.env, `${trainArray}_${job.index}`);
      // The script tries a job that exited 75 again (study/scheduler.ts): its second try finds the
      // job done, so the task completes and the evaluations' afterok holds, with no second submission.
      expect(slurmLogs(plan.dir)).toMatch(
        new RegExp(
          `tinyagent slurm: job ${job.index} is held by another live lease \\(exit 75\\); try 1 of \\d+`,
        ),
      );
      expect(task.get('JobState')).toBe('COMPLETED');
      expect(task.get('ExitCode')).toBe('0:0');
      expect(hostOf(plan, job)).toBe(hostname());
      expect(existsSync(join(plan.dir, 'failed', `${job.id}.txt`))).toBe(false);
      await expectFinished(plan, [here.stdout]);
      process.stderr.write(
        `multinode: frozen-node study in ${seconds(started).toFixed(1)} s (${node.name} frozen ${frozenFor.toFixed(1)} s; its attempt exited 75 and the script's next try found the job done)\n`,
      );
    } finally {
      if (!thawed) cluster!.thaw(node);
    }
  }, 900_000);
});
