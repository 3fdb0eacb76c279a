import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { writeJsonAtomic } from '../../lib/atomic.ts';
import { clip, closestName, count } from '../../lib/text.ts';
import { commandLine } from '../measurementRecord.ts';
// Each subcommand's modules only: `study run --index I` (every job of a scheduler) does not load
// the report's statistics and figures (vega), which cost it a second or more of start-up.
import { jobState, outcomeLine, runJob, type JobState } from '../../study/job.ts';
import { describeMixedFingerprints, fingerprintGroups, jobFingerprint } from '../../study/output.ts';
import { fingerprint, fingerprintDifferences, initBackend } from '../../agent/index.ts';
import {
  DEFAULT_LEASE_TIMEOUT,
  LEASE_TIMEOUT_ENV,
  LEASE_TIMEOUT_RANGE,
  leaseTimeout,
  unlockClaims,
} from '../../study/claim.ts';
import { studyFolder } from '../../study/disk.ts';
import { parseSeeds, readPlan, splitName, writePlan } from '../../study/plan.ts';
import { runStudy } from '../../study/runner.ts';
import {
  arrayList,
  k8sContainerArgs,
  quote,
  SLURM_DEPENDENCIES,
  submitSlurm,
  writeK8sManifests,
  writeSlurmScripts,
  type SlurmDependency,
} from '../../study/scheduler.ts';
import {
  boolFlag,
  InputError,
  intFlag,
  intListFlag,
  listFlag,
  MAX_SEED,
  numberFlag,
  outFileFlag,
  printJson,
  stringFlag,
  UsageError,
  type Command,
} from '../args.ts';
import { RetryError } from '../../lib/errors.ts';
import { printable } from '../../lib/text.ts';

const SUBCOMMANDS = ['plan', 'run', 'status', 'unlock', 'report', 'slurm', 'k8s', 'compare'] as const;

/** How long ago a renewal was by this host's clock (only shown: staleness is judged by watching, never by clocks). */
function renewedAgo(renewed: string): string {
  const seconds = (Date.now() - Date.parse(renewed)) / 1000;
  if (!Number.isFinite(seconds)) return '';
  return seconds < 0
    ? ` (${(-seconds).toFixed(0)} s in the future by this host's clock)`
    : ` (${seconds.toFixed(0)} s ago by this host's clock)`;
}

export const command: Command = {
  name: 'study',
  summary:
    'Seed studies: a recipe over many seeds as jobs, run here, on Slurm or on Kubernetes (docs/STUDIES.md)',
  usage: [
    'tinyagent study plan --recipe default|smoke|FILE --seeds 0-15 --out studies/NAME [--eval-seed 1] [--threads 1|2] [--episodes N] [--steps 0,80]',
    '       tinyagent study run DIR [--jobs N] [--lease-timeout S] | run DIR --index I [--offset K] [--lease-timeout S]',
    '       tinyagent study status DIR | report DIR [--allow-mixed] | unlock DIR [--force] [--lease-timeout S]',
    '       tinyagent study slurm DIR [--dependency per-seed|array] [--partition P --account A --time T] [--train-cpus N --eval-cpus N --mem 2G] [--sbatch OPTION]... [--no-requeue] [--submit]',
    '       tinyagent study k8s DIR [--image IMAGE --claim PVC --parallelism N --train-cpus N --eval-cpus N --mem 2G]',
    '       tinyagent study compare DIR_A DIR_B [--out FILE]',
  ].join('\n'),
  positionals: { min: 1, max: 3 },
  flags: {
    recipe: {
      type: 'string',
      description: 'plan: default, smoke, or a JSON file of training config fields over the defaults',
    },
    seeds: { type: 'string', description: 'plan: training seeds, e.g. 0-15 or 0,2,4' },
    out: {
      type: 'string',
      description: 'plan: the study folder to write; compare: also write the comparison into this JSON file',
    },
    'eval-seed': {
      type: 'string',
      description: 'plan: the study seed every eval seed is forked from',
      default: '1',
      range: { min: 0, max: MAX_SEED },
    },
    threads: {
      type: 'string',
      description: "plan: threads per training (1 or 2; default the recipe's parallel)",
      range: { min: 1, max: 2 },
    },
    episodes: {
      type: 'string',
      description:
        'plan: episodes per measured task (held-out, or the development split under devSplit) in every evaluation (default 64; smoke 8)',
      range: { min: 1, max: 1024 },
    },
    steps: {
      type: 'string',
      description: 'plan: chapter steps to evaluate, e.g. 0,80 (default all nine: 0,10,...,80)',
    },
    jobs: {
      type: 'string',
      description: 'run: CPU slots, a two-thread training taking 2 and an evaluation 1 (default: the cores)',
      range: { min: 1, max: 256 },
    },
    index: {
      type: 'string',
      description: "run: run job I alone (the array schedulers' contract)",
      range: { min: 0, max: 1_000_000 },
    },
    offset: {
      type: 'string',
      description: 'run: with --index I, run job K + I (an Indexed Job over part of the plan)',
      default: '0',
      range: { min: 0, max: 1_000_000 },
    },
    'lease-timeout': {
      type: 'string',
      description: `run, status, unlock: seconds a claim may go unrenewed before it is taken over (default ${DEFAULT_LEASE_TIMEOUT}, or ${LEASE_TIMEOUT_ENV}; holders renew every tenth of it)`,
      range: LEASE_TIMEOUT_RANGE,
    },
    force: { type: 'boolean', description: 'unlock: also remove claims whose holder looks alive' },
    'allow-mixed': {
      type: 'boolean',
      description:
        'report: merge outputs made by different code (their fingerprints differ); the report says so',
    },
    dependency: {
      type: 'string',
      description:
        "slurm: per-seed (each seed's evaluations start when its training is done) or array (when every training is)",
      default: 'per-seed',
    },
    partition: { type: 'string', description: 'slurm: the partition' },
    account: { type: 'string', description: 'slurm: the account to charge' },
    time: { type: 'string', description: 'slurm: wall time per array task, e.g. 01:00:00' },
    'train-cpus': {
      type: 'string',
      description: "slurm, k8s: CPUs of a training task (default: the training's threads)",
      range: { min: 1, max: 256 },
    },
    'eval-cpus': {
      type: 'string',
      description: 'slurm, k8s: CPUs of an evaluation task',
      default: '1',
      range: { min: 1, max: 256 },
    },
    mem: {
      type: 'string',
      description: "slurm, k8s: memory per task, Slurm's size (1500M, 2G)",
      default: '2G',
    },
    sbatch: {
      type: 'string',
      multiple: true,
      description: 'slurm: one more #SBATCH option such as --qos=long (repeatable)',
    },
    'no-requeue': {
      type: 'boolean',
      description: 'slurm: #SBATCH --no-requeue instead of --requeue (a task on a lost node then fails)',
    },
    submit: {
      type: 'boolean',
      description: 'slurm: submit the jobs not done with sbatch and print the job ids',
    },
    image: {
      type: 'string',
      description: 'k8s: container image built from the Dockerfile (ENTRYPOINT the CLI)',
      default: 'tinyagent:local',
    },
    claim: {
      type: 'string',
      description: 'k8s: the PersistentVolumeClaim that holds the study folder',
      default: 'tinyagent-studies',
    },
    parallelism: {
      type: 'string',
      description: 'k8s: pods at once',
      default: '4',
      range: { min: 1, max: 10_000 },
    },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    const [sub, ...rest] = args.positionals as [string, ...string[]];
    if (!(SUBCOMMANDS as readonly string[]).includes(sub)) {
      const near = closestName(sub, SUBCOMMANDS);
      throw new UsageError(
        `unknown study command '${clip(sub)}'${near === undefined ? '' : `; did you mean ${near}?`} (have ${SUBCOMMANDS.join(', ')})`,
      );
    }
    const expect = (wanted: number) => {
      if (rest.length !== wanted)
        throw new UsageError(
          `study ${sub} takes ${wanted === 1 ? 'one folder' : `${wanted} folders`}, got ${rest.length}`,
        );
    };
    const json = boolFlag(args, 'json');
    if (sub === 'plan') {
      expect(0);
      const recipe = stringFlag(args, 'recipe');
      const seedsText = stringFlag(args, 'seeds');
      const out = stringFlag(args, 'out');
      if (recipe === undefined || seedsText === undefined || out === undefined)
        throw new UsageError('study plan needs --recipe, --seeds and --out');
      const threads =
        args.flags.threads === undefined
          ? undefined
          : (intFlag(args, 'threads', 2, { min: 1, max: 2 }) as 1 | 2);
      const episodes =
        args.flags.episodes === undefined ? undefined : intFlag(args, 'episodes', 64, { min: 1, max: 1024 });
      const steps =
        args.flags.steps === undefined ? undefined : intListFlag(args, 'steps', [], { min: 0, max: 80 });
      const plan = writePlan(out, {
        ...(steps !== undefined ? { steps } : {}),
        recipe,
        seeds: parseSeeds(seedsText),
        evalSeed: intFlag(args, 'eval-seed', 1, { min: 0, max: MAX_SEED }),
        ...(threads !== undefined ? { threads } : {}),
        ...(episodes !== undefined ? { episodes } : {}),
      });
      if (json) printJson({ dir: plan.dir, jobs: plan.jobs });
      else {
        for (const job of plan.jobs)
          process.stdout.write(
            job.kind === 'train'
              ? `${job.index}\ttrain seed ${job.seed} (${count(job.threads, 'thread')})\t${job.id}\n`
              : `${job.index}\teval seed ${job.seed} step ${job.chapterStep} ${job.label} (${job.episodes} episodes/task, eval seed ${job.evalSeed})\t${job.id}\tafter ${job.dependsOn.join(',')}\n`,
          );
        process.stdout.write(`${plan.dir}: ${count(plan.jobs.length, 'job')} planned\n`);
      }
      return;
    }
    if (sub === 'compare') {
      expect(2);
      const { compareStudies, formatComparison } = await import('../../study/compare.ts');
      const out = outFileFlag(args, { extension: '.json', format: 'JSON' });
      const measured = compareStudies(readPlan(rest[0]!), readPlan(rest[1]!));
      // The folders as given, not as resolved here: a committed comparison names no machine's paths.
      const comparison = {
        ...measured,
        a: { ...measured.a, dir: rest[0]! },
        b: { ...measured.b, dir: rest[1]! },
      };
      const { coverageClause, IMPROVEMENT_METHOD, PAIRED_T_METHOD, SEED_BOOTSTRAP_METHOD, WELCH_METHOD } =
        await import('../../publish/coverageNotes.ts');
      const design = `${comparison.a.seeds} + ${comparison.b.seeds} seeds`;
      const coverage = [
        [WELCH_METHOD, 'Welch'],
        [SEED_BOOTSTRAP_METHOD, 'bootstrap over seeds'],
        ...(comparison.paired === null ? [] : [[PAIRED_T_METHOD, 'paired t']]),
        [IMPROVEMENT_METHOD, 'P(B > A)'],
      ].flatMap(([method, name]) => {
        const clause = coverageClause(method!, design);
        return clause === undefined ? [] : [`coverage of ${name}: ${clause.text}`];
      });
      const text = formatComparison(comparison, coverage);
      if (out !== undefined) {
        writeJsonAtomic(out, {
          command: commandLine('study', args),
          fingerprint: fingerprint(),
          comparison,
          text: text.split('\n'),
        });
        process.stderr.write(`wrote the comparison to ${out}\n`);
      }
      if (json) printJson(comparison);
      else process.stdout.write(`${text}\n`);
      return;
    }
    expect(1);
    // The timeout is read by every job (the workers inherit it), so a bad one is refused before any runs.
    if (args.flags['lease-timeout'] !== undefined)
      process.env[LEASE_TIMEOUT_ENV] = String(
        numberFlag(args, 'lease-timeout', DEFAULT_LEASE_TIMEOUT, LEASE_TIMEOUT_RANGE),
      );
    const timeout = leaseTimeout();
    const plan = readPlan(rest[0]!);
    if (sub === 'unlock') {
      const rows = await unlockClaims(
        plan.dir,
        plan.jobs.map((job) => job.id),
        {
          timeout,
          force: boolFlag(args, 'force'),
          say: (line) => process.stderr.write(`tinyagent study: ${line}\n`),
        },
      );
      if (json) printJson(rows);
      else {
        for (const row of rows)
          process.stdout.write(
            `${row.verdict}\t${row.index ?? '-'}\t${printable(row.jobId)}\t${row.holder === undefined ? row.problem : `process ${row.holder.pid} on ${row.holder.host} since ${row.holder.since}, last renewed ${row.renewed}`}\t${row.removed ? 'removed' : 'kept'}\n`,
          );
        process.stdout.write(
          `${plan.dir}: ${count(rows.length, 'claim')}, ${rows.filter((row) => row.removed).length} removed, ${rows.filter((row) => !row.removed).length} kept\n`,
        );
      }
      return;
    }
    if (sub === 'run') {
      if (args.flags.offset !== undefined && args.flags.index === undefined)
        throw new UsageError('--offset goes with --index');
      if (args.flags.index !== undefined) {
        if (args.flags.jobs !== undefined) throw new UsageError('give --index or --jobs, not both');
        const offset = intFlag(args, 'offset', 0, { min: 0, max: 1_000_000 });
        const index = offset + intFlag(args, 'index', 0, { min: 0, max: 1_000_000 });
        if (index >= plan.jobs.length)
          throw new UsageError(
            `--index ${offset === 0 ? index : `${index - offset} --offset ${offset} (job ${index})`} is out of range: the plan has jobs 0 to ${plan.jobs.length - 1}`,
          );
        const outcome = await runJob(plan, index, {
          quiet: false,
          say: (line) => process.stderr.write(`tinyagent study: ${line}\n`),
        });
        // Held by a live lease: not done, exit 75, so that afterok and backoffLimitPerIndex see it.
        if (typeof outcome !== 'string') throw new RetryError(outcomeLine(plan, index, outcome));
        process.stdout.write(`${outcomeLine(plan, index, outcome)}\n`);
        return;
      }
      const workers = intFlag(args, 'jobs', availableParallelism(), { min: 1, max: 256 });
      const summary = await runStudy(plan, { workers, say: (line) => process.stderr.write(`${line}\n`) });
      if (json) printJson(summary);
      else
        process.stdout.write(
          `${plan.dir}: ${count(summary.ran, 'job')} ran, ${summary.skipped} ${summary.skipped === 1 ? 'was' : 'were'} done, ${summary.failed.length} failed, ${summary.blocked} left pending; ${summary.seconds.toFixed(1)} s on ${count(workers, 'CPU slot')}\n`,
        );
      if (summary.failed.length > 0)
        throw new InputError(
          `${count(summary.failed.length, 'job')} failed (first: job ${summary.failed[0]!.index}, log ${summary.failed[0]!.log}); rerun study run to retry them`,
        );
      if (summary.blocked > 0)
        throw new RetryError(
          `${summary.blocked === 1 ? '1 job is' : `${summary.blocked} jobs are`} not done (held by other runs, their claim lost while they ran, or waiting on them); rerun study run when they end`,
        );
      return;
    }
    if (sub === 'status') {
      const states = plan.jobs.map((job) => ({ index: job.index, id: job.id, ...jobState(plan, job) }));
      const count = (state: JobState['state']) => states.filter((row) => row.state === state).length;
      // Done by other code: what the backend a run would start now gives (TINYAGENT_BACKEND), part by part.
      await initBackend();
      const current = fingerprint();
      const stale = states
        .filter((row) => row.state === 'done')
        .flatMap((row) => {
          const recorded = jobFingerprint(plan, plan.jobs[row.index]!);
          const differences = fingerprintDifferences(recorded, current);
          return differences.length === 0
            ? []
            : [{ index: row.index, id: row.id, fingerprint: recorded ?? null, differences }];
        });
      if (json) {
        printJson({
          done: count('done'),
          running: count('running'),
          failed: count('failed'),
          pending: count('pending'),
          stale: stale.length,
          jobs: states,
          staleJobs: stale,
          fingerprint: current,
        });
        return;
      }
      for (const row of stale)
        process.stdout.write(
          `stale\t${row.index}\t${row.id}\t${row.fingerprint === null ? 'no fingerprint (made before fingerprints were recorded)' : `made by other code: ${printable(row.differences.join(', '))}`}\n`,
        );
      for (const row of states.filter((entry) => entry.state === 'running' || entry.state === 'failed'))
        process.stdout.write(
          row.state === 'running'
            ? `running\t${row.index}\t${row.id}\tprocess ${row.holder.pid} on ${row.holder.host} since ${row.holder.since}, last renewed ${row.renewed}${renewedAgo(row.renewed)}; stale once not renewed for ${timeout} s (study unlock watches it)\n`
            : `failed\t${row.index}\t${row.id}\t${row.state === 'failed' ? row.problem : ''}\n`,
        );
      process.stdout.write(
        `${plan.dir}: ${count('done')} done, ${count('running')} running, ${count('failed')} failed, ${count('pending')} pending of ${plan.jobs.length}${stale.length === 0 ? '' : `; ${stale.length} of the done made by other code than this (stale)`}\n`,
      );
      return;
    }
    if (sub === 'report') {
      const { writeStudyReport } = await import('../../publish/studyReport.ts');
      // The folders it writes into stay inside the study: a link or a file in their place is refused.
      for (const folder of ['results', 'results/figures']) studyFolder(plan.dir, folder);
      // One report merges the outputs of one code (agent/fingerprint.ts), unless told otherwise.
      const done = plan.jobs.filter((job) => jobState(plan, job).state === 'done');
      const groups = fingerprintGroups(plan, done);
      const mixedCode = describeMixedFingerprints(groups);
      if (mixedCode !== undefined && !boolFlag(args, 'allow-mixed'))
        throw new InputError(
          `${plan.dir}: its outputs were made by different code: ${mixedCode}; rerun those jobs with one version (remove their jobs/<id> folders, then study run), or merge them anyway with --allow-mixed`,
        );
      if (mixedCode !== undefined)
        process.stderr.write(`tinyagent study: warning: merging outputs of different code: ${mixedCode}\n`);
      else if (groups.length === 1 && groups[0]!.fingerprint === undefined)
        process.stderr.write(
          `tinyagent study: note: no output of ${plan.dir} records a fingerprint (made before fingerprints were recorded), so they are merged as one code that cannot be named\n`,
        );
      const outputsFingerprint = groups.length === 1 ? groups[0]!.fingerprint : undefined;
      const { outDir, numbers } = await writeStudyReport(plan, {
        ...(mixedCode !== undefined ? { mixedCode } : {}),
        ...(outputsFingerprint !== undefined ? { outputsFingerprint } : {}),
      });
      if (json) printJson(numbers);
      else {
        const last = numbers.steps[numbers.steps.length - 1]!;
        process.stdout.write(
          `step-${last.step} ${splitName(plan)} pass@1 over ${numbers.seeds.length} seeds: mean ${last.mean.estimate.toFixed(3)}, SD ${last.sd === null ? 'n/a' : last.sd.estimate.toFixed(3)}, ${last.min.toFixed(3)} to ${last.max.toFixed(3)}; written to ${outDir}\n`,
        );
      }
      return;
    }
    const resources = () => {
      const trainCpus =
        args.flags['train-cpus'] === undefined
          ? undefined
          : intFlag(args, 'train-cpus', 1, { min: 1, max: 256 });
      return {
        ...(trainCpus !== undefined ? { trainCpus } : {}),
        evalCpus: intFlag(args, 'eval-cpus', 1, { min: 1, max: 256 }),
        mem: stringFlag(args, 'mem') ?? '2G',
      };
    };
    if (sub === 'slurm') {
      const dependency = stringFlag(args, 'dependency') ?? 'per-seed';
      if (!(SLURM_DEPENDENCIES as readonly string[]).includes(dependency))
        throw new UsageError(
          `--dependency must be ${SLURM_DEPENDENCIES.join(' or ')}, got ${JSON.stringify(dependency)}`,
        );
      const time = stringFlag(args, 'time');
      const partition = stringFlag(args, 'partition');
      const account = stringFlag(args, 'account');
      const scripts = writeSlurmScripts(plan, {
        ...resources(),
        dependency: dependency as SlurmDependency,
        requeue: !boolFlag(args, 'no-requeue'),
        sbatch: listFlag(args, 'sbatch'),
        ...(partition !== undefined ? { partition } : {}),
        ...(account !== undefined ? { account } : {}),
        ...(time !== undefined ? { time } : {}),
      });
      const jobs = (value: number) => count(value, 'job');
      const todo = scripts.arrays.reduce((total, array) => total + array.indices.length, 0);
      if (!boolFlag(args, 'submit')) {
        process.stdout.write(
          `wrote ${scripts.train}, ${scripts.eval} and ${scripts.submit}; ${todo === 0 ? 'every job is done: submit.sh submits nothing' : `submit the ${jobs(todo)} not done with: bash ${quote(scripts.submit)}`}\n`,
        );
        return;
      }
      if (todo === 0) {
        if (json) printJson([]);
        else
          process.stdout.write(
            `${plan.dir}: every job is done (${jobs(plan.jobs.length)}); nothing submitted\n`,
          );
        return;
      }
      const submitted = submitSlurm(scripts);
      if (json) {
        printJson(submitted);
        return;
      }
      const train = submitted.find((array) => array.script === 'train');
      const evaluations = submitted.filter((array) => array.script === 'eval');
      const describe = (array: (typeof submitted)[number]) =>
        `${array.id} (${array.seed !== undefined ? `seed ${array.seed}: ` : ''}--array=${arrayList(array.indices)}${array.dependency !== null ? `, ${array.dependency}` : ''})`;
      process.stdout.write(
        `submitted ${jobs(todo)} of ${plan.jobs.length}: ${[
          ...(train !== undefined ? [`training array ${describe(train)}`] : []),
          ...(evaluations.length > 0
            ? [
                `evaluation array${evaluations.length === 1 ? '' : 's'} ${evaluations.map(describe).join(', ')}`,
              ]
            : []),
        ].join(' and ')}\n`,
      );
      return;
    }
    // k8s
    const paths = writeK8sManifests(plan, {
      ...resources(),
      image: stringFlag(args, 'image') ?? 'tinyagent:local',
      claim: stringFlag(args, 'claim') ?? 'tinyagent-studies',
      parallelism: intFlag(args, 'parallelism', 4, { min: 1, max: 10_000 }),
    });
    const podCommand = (path: string) =>
      `tinyagent ${k8sContainerArgs(readFileSync(path, 'utf8')).join(' ')}`;
    process.stdout.write(
      `wrote ${paths.train} (pods run: ${podCommand(paths.train)}) and ${paths.eval} (${podCommand(paths.eval)}); apply the second once the first Job is complete\n`,
    );
  },
};
