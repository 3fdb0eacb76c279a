import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend, loadAgent } from '../agent/index.ts';
import { jobState, readPlan } from '../study/index.ts';
import { BIN, type StudyRunSummary } from '../study/runner.ts';
import { leastOf, timed, timedAsync, type Figures } from './best.ts';
import { startSlurm, waitForQueue } from './slurm.ts';

const WORKERS = 2;
/** Fresh `study run --index` processes timed for the per-process start-up, best of this many. */
const STARTS = 3;

const load = () => Math.round((loadavg()[0] ?? 0) * 100) / 100;

function cli(args: string[], env: NodeJS.ProcessEnv = process.env): { stdout: string; seconds: number } {
  const { value: result, seconds } = timed(() =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 26, env }),
  );
  if (result.status !== 0)
    throw new Error(`tinyagent ${args.join(' ')} failed (exit ${result.status}): ${result.stderr.trim()}`);
  return { stdout: result.stdout, seconds };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const mean = (values: number[]) => sum(values) / values.length;

/**
 * The seed-study runner on this machine (docs/STUDIES.md, "How long it takes"): `study run --jobs
 * 2` of a 4-seed smoke study against the jobs' summed time / 2 (target: within 10%); the overhead
 * per job (target: under 2 s), a checkpoint's load and a fresh `study run --index` process's start;
 * and the study on Slurm (`slurmDependencies`). Each figure comes with the load average then.
 */
export async function run(say: (line: string) => void): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'tinyagent-bench-study-'));
  try {
    const study = join(dir, 'smoke-4');
    cli(['study', 'plan', '--recipe', 'smoke', '--seeds', '0-3', '--out', study]);
    const loadBefore = load();
    const ran = cli(['study', 'run', study, '--jobs', String(WORKERS), '--json']);
    const loadAfter = load();
    const summary = JSON.parse(ran.stdout) as StudyRunSummary;
    const jobs = summary.jobs;
    const work = sum(jobs.map((job) => job.work ?? 0));
    const ratio = ran.seconds / (work / WORKERS);
    say(
      `study run --jobs ${WORKERS}, 4-seed smoke study (${jobs.length} jobs): wall ${ran.seconds.toFixed(1)} s, jobs' summed time ${work.toFixed(1)} s, wall / (sum / ${WORKERS}) = ${ratio.toFixed(3)} (target <= 1.10); load ${loadBefore} -> ${loadAfter}`,
    );
    // Slot-seconds the workers held a job against the slot-seconds of the run: what idled.
    const busy = sum(jobs.map((job) => job.wall * job.slots)) / (WORKERS * summary.seconds);
    say(
      `  slots busy ${(100 * busy).toFixed(1)}% of the run (${summary.seconds.toFixed(1)} s inside study run)`,
    );

    // Overhead per job: the worker's start spread over its jobs, and what the runner adds to each job's work.
    const later = jobs.filter((job, i) => jobs.findIndex((other) => other.worker === job.worker) !== i);
    const aroundJob = later.map((job) => job.wall - (job.work ?? 0));
    const workerStart = mean(summary.workerStarts);
    const overheadPerJob = (sum(jobs.map((job) => job.wall)) - work) / jobs.length;
    const writeSeconds = mean(later.map((job) => (job.inJob ?? 0) - (job.work ?? 0)));
    const handOver = mean(later.map((job) => job.wall - (job.inJob ?? 0)));
    say(
      `  overhead per job: ${overheadPerJob.toFixed(3)} s (target < 2), of which around each job ${mean(aroundJob).toFixed(3)} s (max ${Math.max(...aroundJob).toFixed(3)}: verify, claim, checksums, write ${writeSeconds.toFixed(3)} s; hand-over ${handOver.toFixed(3)} s) and ${summary.workerStarts.length} worker starts of ${workerStart.toFixed(2)} s spread over ${jobs.length} jobs`,
    );

    const checkpoint = join(study, 'jobs', readPlan(study).jobs[0]!.id, 'step-8');
    await initBackend();
    const loadSeconds = await leastOf(5, async () => {
      const { value, seconds } = await timedAsync(() => loadAgent(checkpoint));
      value.agent.model.dispose();
      return seconds;
    });
    say(`  a checkpoint's load (inside an evaluation's work): ${(1000 * loadSeconds).toFixed(1)} ms`);

    // A fresh process per job, as under Slurm or Kubernetes: `--index` of a done job is the start alone.
    const loadStart = load();
    const processStart = await leastOf(
      STARTS,
      () => cli(['study', 'run', study, '--index', String(jobs.length - 1)]).seconds,
    );
    say(
      `  a fresh study run --index process (start, plan, verify; a done job): ${processStart.toFixed(2)} s, best of ${STARTS}; load ${loadStart}`,
    );

    const slurm = await slurmDependencies(dir, say);
    return {
      slurm,
      jobs: jobs.length,
      wallSeconds: ran.seconds,
      summedJobSeconds: work,
      wallOverIdeal: ratio,
      slotsBusy: busy,
      loadBefore,
      loadAfter,
      overheadPerJobSeconds: overheadPerJob,
      aroundJobSeconds: mean(aroundJob),
      aroundJobMaxSeconds: Math.max(...aroundJob),
      writeSeconds,
      handOverSeconds: handOver,
      workerStartSeconds: workerStart,
      workers: summary.workerStarts.length,
      checkpointLoadSeconds: loadSeconds,
      freshProcessSeconds: processStart,
      loadFreshProcess: loadStart,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The two dependency schemes of `study slurm`, each on the same 4-seed smoke study: the wall time
 * from the submission to an empty queue. On the cluster of SLURM_CONF when set, else on a
 * single-node cluster started here (bench/slurm.ts: root and Debian's Slurm packages).
 */
async function slurmDependencies(
  dir: string,
  say: (line: string) => void,
): Promise<Record<string, number | string>> {
  // Ports of its own: a Slurm test may run meanwhile.
  const own =
    process.env['SLURM_CONF'] === undefined
      ? await startSlurm({ cpus: WORKERS, ports: [16827, 16828] })
      : undefined;
  const env = own?.env ?? process.env;
  try {
    const wall: Record<string, number> = {};
    for (const dependency of ['per-seed', 'array']) {
      const study = join(dir, `slurm-${dependency}`);
      cli(['study', 'plan', '--recipe', 'smoke', '--seeds', '0-3', '--out', study]);
      const loadBefore = load();
      const started = performance.now();
      const arrays = JSON.parse(
        cli(['study', 'slurm', study, '--dependency', dependency, '--submit', '--json'], env).stdout,
      ) as unknown[];
      if (!(await waitForQueue(env, 3_600_000)))
        throw new Error(`the ${dependency} study did not leave the Slurm queue within an hour`);
      wall[dependency] = (performance.now() - started) / 1000;
      const plan = readPlan(study);
      const left = plan.jobs.filter((job) => jobState(plan, job).state !== 'done').length;
      if (left > 0)
        throw new Error(`${left} jobs of the ${dependency} study on Slurm are not done; see ${study}/logs`);
      say(
        `study slurm --dependency ${dependency}, 4-seed smoke study (${plan.jobs.length} jobs, ${arrays.length} arrays) on ${own === undefined ? 'the SLURM_CONF cluster' : `a single-node Slurm of ${WORKERS} CPUs`}: wall ${wall[dependency]!.toFixed(1)} s from submission to an empty queue; load ${loadBefore} -> ${load()}`,
      );
    }
    const ratio = wall['array']! / wall['per-seed']!;
    say(`  array / per seed = ${ratio.toFixed(3)} (below 1: per seed was slower)`);
    return {
      cluster: own === undefined ? 'SLURM_CONF' : `single node, ${WORKERS} CPUs`,
      perSeedWallSeconds: wall['per-seed']!,
      arrayWallSeconds: wall['array']!,
      arrayOverPerSeed: ratio,
    };
  } finally {
    own?.stop();
  }
}
