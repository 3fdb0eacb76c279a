import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliChild } from './support/child.ts';
import { podCommand } from './support/k8s.ts';
import { main as seedsMain } from '../experiments/seeds.ts';
import { loadResults, sharedSeeds, jobState, readPlan, type Plan } from '../study/index.ts';
import { compareStudies } from '../study/compare.ts';
import { writePlan, type Job } from '../study/plan.ts';
import { SMOKE_CONFIG } from '../train/config.ts';
import { evalKey } from '../study/results.ts';
import type { StudyRunSummary } from '../study/runner.ts';
import { writeK8sManifests } from '../study/scheduler.ts';
import { jobDir, outputProblem } from '../study/output.ts';

const root = mkdtempSync(join(tmpdir(), 'tinyagent-study-run-'));
const dir = join(root, 'smoke');
let plan: Plan;
/** What `study run --jobs 2 --json` said of the shared study's first run. */
let summary: StudyRunSummary;

const run = cliChild;
const reportText = () => readFileSync(join(dir, 'results', 'study.md'), 'utf8');
/** Lines `job I (...) done` in every job log: how many times each job actually ran. */
const ranCount = (index: number) =>
  readdirSync(join(dir, 'logs'))
    .filter((name) => name.startsWith(`${index}-`))
    .flatMap((name) => readFileSync(join(dir, 'logs', name), 'utf8').split('\n'))
    .filter((line) => /^job \d+ \(.*\) done$/.test(line)).length;

// One 2-seed smoke study of every chapter step (2 trainings, 26 evaluations), shared by the tests.
describe('study run on a smoke study', () => {
  beforeAll(async () => {
    plan = writePlan(dir, { recipe: 'smoke', seeds: [0, 1], evalSeed: 1 });
    const result = await run(['study', 'run', dir, '--jobs', '2', '--json']);
    // Piped stderr: a progress line per job done, nothing else (test/progress.test.ts).
    expect(result.stderr.trimEnd().split('\n')).toEqual(
      plan.jobs.map((_, i) =>
        expect.stringMatching(new RegExp(`^study ${i + 1}/${plan.jobs.length} \\d+s \\S+$`)),
      ),
    );
    expect(result.status).toBe(0);
    summary = JSON.parse(result.stdout) as StudyRunSummary;
    expect((await run(['study', 'report', dir])).status).toBe(0);
  }, 900_000);

  it('runs every job once, and a rerun skips them all', async () => {
    expect(plan.jobs.map((job) => jobState(plan, job).state).every((state) => state === 'done')).toBe(true);
    expect(plan.jobs.map((job) => ranCount(job.index))).toEqual(plan.jobs.map(() => 1));
    const again = await run(['study', 'run', dir, '--jobs', '2']);
    expect(again.stdout).toMatch(/0 jobs ran, 28 were done, 0 failed/);
    const status = await run(['study', 'status', dir]);
    expect(status.stdout).toMatch(/28 done, 0 running, 0 failed, 0 pending of 28/);
  });

  it('a worker process runs job after job: each job gives the bytes of a fresh process, and leaves no tensors behind', async () => {
    // Two workers ran the 28 jobs, each many of them in one process.
    const byWorker = new Map<number, StudyRunSummary['jobs']>();
    for (const job of summary.jobs) byWorker.set(job.worker, [...(byWorker.get(job.worker) ?? []), job]);
    expect(summary.workerStarts).toHaveLength(2);
    expect([...byWorker.values()].map((jobs) => jobs.length).sort()).not.toContain(1);
    for (const jobs of byWorker.values()) {
      // The live tensors after every job are those after the worker's first (the training's kept causal masks): no job leaks.
      expect(new Set(jobs.map((job) => job.tensors)).size).toBe(1);
    }
    // The last job of a worker, run again alone in a fresh process (`--index`), gives the same bytes.
    const jobs = [...byWorker.values()][0]!;
    const last = plan.jobs[jobs[jobs.length - 1]!.index]!;
    expect(jobs.length).toBeGreaterThan(10);
    const before = readFileSync(join(jobDir(plan, last), 'output.json'), 'utf8');
    const result = readFileSync(join(jobDir(plan, last), 'result.json'), 'utf8');
    rmSync(jobDir(plan, last), { recursive: true });
    expect((await run(['study', 'run', dir, '--index', String(last.index)])).status).toBe(0);
    expect(readFileSync(join(jobDir(plan, last), 'output.json'), 'utf8')).toBe(before);
    expect(readFileSync(join(jobDir(plan, last), 'result.json'), 'utf8')).toBe(result);
  });

  it('one worker runs every job of a plan, trainings after trainings, to the same bytes; a killed worker fails its job only', async () => {
    // Steps 0 only: the two trainings and each seed's three evaluations, all in one process.
    const other = join(root, 'one-worker');
    const small = writePlan(other, { recipe: 'smoke', seeds: [0, 1], evalSeed: 1, steps: [0] });
    const result = await run(['study', 'run', other, '--jobs', '1', '--json']);
    expect(result.status).toBe(0);
    const ran = JSON.parse(result.stdout) as StudyRunSummary;
    expect(new Set(ran.jobs.map((job) => job.worker)).size).toBe(1);
    expect(ran.jobs.map((job) => job.index)).toEqual(small.jobs.map((job) => job.index));
    // The same jobs (ids) as the shared study's, at other indices: the sha256 of every file they wrote is the same.
    const files = (folder: string) => {
      const { index, ...rest } = JSON.parse(readFileSync(join(folder, 'output.json'), 'utf8')) as {
        index: number;
      };
      return rest;
    };
    for (const job of small.jobs) {
      const shared = plan.jobs.find((candidate) => candidate.id === job.id)!;
      expect(files(jobDir(small, job))).toEqual(files(jobDir(plan, shared)));
    }
    // Kill the worker while it runs the first of two evaluations: that job fails, with the signal
    // in its log; a new worker runs the other; a rerun then runs the failed one.
    const [first, second] = small.jobs.filter((job) => job.kind === 'eval').slice(0, 2) as [Job, Job];
    for (const job of [first, second]) rmSync(jobDir(small, job), { recursive: true });
    const child = spawn(process.execPath, [BIN, 'study', 'run', other, '--jobs', '1']);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lock = join(other, 'claims', `${first.id}.lock`);
    while (!existsSync(lock)) await new Promise((resolve) => setTimeout(resolve, 20));
    const holder = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number };
    expect(holder.pid).not.toBe(child.pid);
    process.kill(holder.pid, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(new RegExp(`job ${first.index} \\(${first.id}\\) failed \\(exit 137\\)`));
    expect(stderr).toMatch(/1 job failed/);
    const log = readdirSync(join(other, 'logs')).find((name) => name.startsWith(`${first.index}-`))!;
    expect(readFileSync(join(other, 'logs', log), 'utf8')).toMatch(
      /ended during this job \(signal SIGKILL\)/,
    );
    expect(jobState(small, second).state).toBe('done');
    expect(jobState(small, first).state).toBe('failed');
    const rerun = await run(['study', 'run', other, '--jobs', '1']);
    expect(rerun.stdout).toMatch(/1 job ran, \d+ were done, 0 failed/);
    expect(files(jobDir(small, first))).toEqual(files(jobDir(plan, first)));
  }, 300_000);

  it("trainings of one baseSeed: each takes a done training's step 0 instead of behaviour cloning, to the bytes it would clone", async () => {
    // The same plan twice, its two trainings run in opposite orders: the first to run clones, the
    // second takes the first's step 0. Each training's files are the same bytes either way.
    const recipe = join(root, 'smoke-base-0.json');
    writeFileSync(recipe, JSON.stringify({ ...SMOKE_CONFIG, baseSeed: 0 }));
    const folders = [join(root, 'base-0-first'), join(root, 'base-1-first')];
    const plans = folders.map((folder) =>
      writePlan(folder, { recipe, seeds: [0, 1], evalSeed: 1, steps: [0] }),
    );
    const training = (plan: Plan, seed: number) =>
      plan.jobs.find((job) => job.kind === 'train' && job.seed === seed)!;
    const firstRuns: string[] = [];
    for (const [i, first] of [0, 1].entries()) {
      const index = training(plans[i]!, first).index;
      const alone = await run(['study', 'run', folders[i]!, '--index', String(index)]);
      expect(alone.status).toBe(0);
      firstRuns.push(alone.stdout + alone.stderr);
      expect((await run(['study', 'run', folders[i]!, '--jobs', '1'])).status).toBe(0);
    }
    const output = (plan: Plan, job: Job) =>
      (JSON.parse(readFileSync(join(jobDir(plan, job), 'output.json'), 'utf8')) as { files: unknown }).files;
    const logOf = (folder: string, job: Job) =>
      readdirSync(join(folder, 'logs'))
        .filter((name) => name.startsWith(`${job.index}-`))
        .map((name) => readFileSync(join(folder, 'logs', name), 'utf8'))
        .join('');
    for (const seed of [0, 1]) {
      const [a, b] = plans.map((plan) => training(plan, seed));
      expect(output(plans[1]!, b!)).toEqual(output(plans[0]!, a!));
    }
    // Seed 1 took seed 0's base agent in the first plan, seed 0 took seed 1's in the second.
    expect(logOf(folders[0]!, training(plans[0]!, 1))).toMatch(/step 0: the base agent of \S+ \(baseSeed 0/);
    for (const output of firstRuns) expect(output).toMatch(/step 0 \(behaviour cloning, 30 steps/);
    expect(logOf(folders[1]!, training(plans[1]!, 0))).toMatch(/step 0: the base agent of \S+ \(baseSeed 0/);
    // Without a baseSeed (the smoke recipe), every training clones its own base agent.
    expect(logOf(dir, training(plan, 1))).toMatch(/step 0 \(behaviour cloning, 30 steps/);
  }, 300_000);

  it('reruns a job whose output fails its checksum, to the same bytes', async () => {
    const job = plan.jobs[5]!;
    const path = join(jobDir(plan, job), 'result.json');
    const before = readFileSync(path, 'utf8');
    writeFileSync(path, before.replace('"successes": ', '"successes": 1'));
    expect(outputProblem(plan, job)).toBe('result.json fails its checksum');
    expect((await run(['study', 'status', dir])).stdout).toMatch(
      /^failed\t5\t.*result\.json fails its checksum$/m,
    );
    const report = reportText();
    expect((await run(['study', 'run', dir, '--jobs', '2'])).stdout).toMatch(/1 job ran, 27 were done/);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect((await run(['study', 'report', dir])).status).toBe(0);
    expect(reportText()).toBe(report);
  });

  it("takes over a dead holder's claim and discards its partial output", async () => {
    const job = plan.jobs[6]!;
    rmSync(jobDir(plan, job), { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!; // a pid that has exited
    writeFileSync(
      join(dir, 'claims', `${job.id}.lock`),
      JSON.stringify({ pid: dead, host: hostname(), since: 'then' }),
    );
    const partial = join(dir, 'jobs', `.partial-${job.id}-${hostname()}-${dead}`);
    writeFileSync(partial, 'half');
    expect(jobState(plan, job).state).toBe('failed');
    expect((await run(['study', 'run', dir, '--index', '6'])).stdout).toMatch(/done/);
    expect(jobState(plan, job).state).toBe('done');
    expect(existsSync(partial)).toBe(false);
    expect(existsSync(join(dir, 'claims', `${job.id}.lock`))).toBe(false);
  });

  it('two study run on one folder never run a job twice', async () => {
    const again = [10, 11, 12, 13, 14, 15];
    const before = again.map(ranCount);
    for (const index of again) rmSync(jobDir(plan, plan.jobs[index]!), { recursive: true });
    const both = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<number>((resolve) => {
            const child = spawn(process.execPath, [BIN, 'study', 'run', dir, '--jobs', '2'], {
              stdio: 'ignore',
            });
            child.on('exit', (code) => resolve(code ?? -1));
          }),
      ),
    );
    expect(both).toEqual([0, 0]);
    expect(again.map(ranCount)).toEqual(before.map((count) => count + 1));
  }, 120_000);

  it("the evaluation manifest's pod JOB_COMPLETION_INDEX runs job 2 + JOB_COMPLETION_INDEX", async () => {
    const manifest = readFileSync(
      writeK8sManifests(plan, { image: 'tinyagent:local', claim: 'studies', parallelism: 4 }).eval,
      'utf8',
    );
    expect(manifest).toMatch(/completionMode: Indexed/);
    expect(manifest).toMatch(/completions: 26/);
    const job = plan.jobs[20]!;
    const other = plan.jobs[21]!;
    rmSync(jobDir(plan, job), { recursive: true });
    rmSync(jobDir(plan, other), { recursive: true });
    const [node, ...args] = podCommand(manifest, { index: 18, study: dir });
    const result = spawnSync(node!, args, { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`job 20 (${job.id}) done\n`);
    expect(jobState(plan, job).state).toBe('done');
    expect(jobState(plan, other).state).toBe('pending');
    expect((await run(['study', 'run', dir, '--index', '21'])).status).toBe(0);
  });

  it('exp:seeds measures every claim across the seeds', async () => {
    const numbers = await seedsMain({ study: dir, seed: 1, outDir: join(root, 'results') });
    expect(numbers.seeds).toEqual([0, 1]);
    expect(numbers.perSeed).toHaveLength(2);
    for (const claim of Object.values(numbers.claims)) {
      expect(claim.seeds).toBe(2);
      expect(claim.wilson.low).toBeLessThanOrEqual(claim.fraction);
      expect(claim.wilson.high).toBeGreaterThanOrEqual(claim.fraction);
    }
    const report = readPlan(dir);
    expect(numbers.step80.mean).toBeCloseTo(
      (numbers.perSeed[0]!.passAt1[80]! + numbers.perSeed[1]!.passAt1[80]!) / 2,
      12,
    );
    expect(numbers.probabilityOfImprovement.low).toBeLessThanOrEqual(
      numbers.probabilityOfImprovement.estimate,
    );
    expect(report.measure.episodes).toBe(8);
    // One function, one interval: the study report prints the IQM and P(step 80 > step 0) exp:seeds prints.
    const study = JSON.parse(readFileSync(join(dir, 'results', 'study.json'), 'utf8'));
    const step80 = study.numbers.steps.find((row: { step: number }) => row.step === 80);
    expect(step80.iqm).toEqual(numbers.aggregates[80].iqm);
    expect(step80.mean).toEqual(numbers.aggregates[80].mean);
    expect(study.numbers.probabilityOfImprovement).toEqual(numbers.probabilityOfImprovement);
    for (const file of [
      'seeds.json',
      'seeds.md',
      'figures/seeds-narrowing.svg',
      'figures/seeds-profiles.svg',
      'figures/seeds-step80.svg',
    ])
      expect(existsSync(join(root, 'results', file))).toBe(true);
  });

  it('compare: a study against itself, or a copy of it, is refused in one line', async () => {
    expect(() => compareStudies(plan, plan)).toThrow(/plan the same jobs/);
    const text = await run(['study', 'compare', dir, dir]);
    expect(text.status).toBe(1);
    expect(text.stderr.trim().split('\n')).toHaveLength(1);
    expect(text.stderr).toMatch(/plan the same jobs .*compare two recipes/);
    const out = join(root, 'compare.json');
    const written = await run(['study', 'compare', dir, dir, '--out', out]);
    expect(written.status).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it('compare: seeds are shared when their step-0 checkpoint and every evaluation episode are the same', () => {
    const results = loadResults(plan);
    expect(sharedSeeds(results, results)).toEqual([0, 1]);
    // Another study whose seed 1 was evaluated on other episodes: only seed 0 pairs.
    const evaluations = new Map(results.evaluations);
    const seed1 = new Map(evaluations.get(1)!);
    const step0 = seed1.get(evalKey(0, 'a'))!;
    const flipped = step0.perTask[0]!.outcomes.replace(/^./, (c) => (c === '1' ? '0' : '1'));
    seed1.set(evalKey(0, 'a'), {
      ...step0,
      perTask: [{ ...step0.perTask[0]!, outcomes: flipped }, ...step0.perTask.slice(1)],
    });
    evaluations.set(1, seed1);
    expect(sharedSeeds(results, { ...results, evaluations })).toEqual([0]);
    const otherCheckpoint = new Map(results.evaluations);
    otherCheckpoint.set(
      0,
      new Map([
        [
          evalKey(0, 'a'),
          { ...results.evaluations.get(0)!.get(evalKey(0, 'a'))!, checkpointChecksum: 'other' },
        ],
      ]),
    );
    expect(sharedSeeds(results, { ...results, evaluations: otherCheckpoint })).toEqual([1]);
  });
});
