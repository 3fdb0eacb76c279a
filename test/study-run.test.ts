import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main as seedsMain } from '../experiments/seeds.ts';
import {
  compareStudies,
  jobDir,
  jobState,
  k8sCommand,
  outputProblem,
  readPlan,
  writeK8sManifest,
  writePlan,
  type Plan,
} from '../study/index.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'tinyagent.js');
const root = mkdtempSync(join(tmpdir(), 'tinyagent-study-run-'));
const dir = join(root, 'smoke');
let plan: Plan;

/** Runs the CLI in a child process without blocking this worker (a study takes minutes). */
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
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
    const result = await run(['study', 'run', dir, '--jobs', '2']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
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
    expect((await run(['study', 'run', dir, '--jobs', '2'])).stdout).toMatch(/1 jobs ran, 27 were done/);
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

  it('the Kubernetes manifest runs job JOB_COMPLETION_INDEX', async () => {
    const manifest = readFileSync(
      writeK8sManifest(plan, { image: 'tinyagent:local', claim: 'studies', parallelism: 4 }),
      'utf8',
    );
    expect(manifest).toMatch(/completionMode: Indexed/);
    expect(manifest).toMatch(/completions: 28/);
    const job = plan.jobs[20]!;
    const other = plan.jobs[21]!;
    rmSync(jobDir(plan, job), { recursive: true });
    rmSync(jobDir(plan, other), { recursive: true });
    const result = spawnSync('/bin/sh', ['-c', k8sCommand(manifest)], {
      encoding: 'utf8',
      env: { ...process.env, JOB_COMPLETION_INDEX: '20' },
    });
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
    for (const file of [
      'seeds.json',
      'seeds.md',
      'figures/seeds-narrowing.svg',
      'figures/seeds-profiles.svg',
      'figures/seeds-step80.svg',
    ])
      expect(existsSync(join(root, 'results', file))).toBe(true);
  });

  it('compare: a study against itself differs by 0 with P(improvement) 0.5', async () => {
    const comparison = compareStudies(plan, plan);
    expect(comparison.difference).toBe(0);
    expect(comparison.probabilityOfImprovement).toBe(0.5);
    expect(comparison.seedsNeeded).toBeNull();
    const text = await run(['study', 'compare', dir, dir]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/B - A = \+0\.000/);
  });
});
