import { parseSeeds, writePlan, type Job } from '../../../study/plan.ts';
import { count } from '../../../lib/text.ts';
import {
  boolFlag,
  definedFields,
  intFlag,
  intListFlag,
  printJson,
  stringFlag,
  UsageError,
  type CommandArgs,
} from '../../args.ts';

/** One planned job as `study plan` lists it: index, what it runs, id (and an evaluation's training). */
function jobLine(job: Job): string {
  return job.kind === 'train'
    ? `${job.index}\ttrain seed ${job.seed} (${count(job.threads, 'thread')})\t${job.id}`
    : `${job.index}\teval seed ${job.seed} step ${job.chapterStep} ${job.label} (${job.episodes} episodes/task, eval seed ${job.evalSeed})\t${job.id}\tafter ${job.dependsOn.join(',')}`;
}

/** `study plan`: writes the study folder and lists its jobs. */
export async function studyPlan(args: CommandArgs): Promise<void> {
  const recipe = stringFlag(args, 'recipe');
  const seedsText = stringFlag(args, 'seeds');
  const out = stringFlag(args, 'out');
  if (recipe === undefined || seedsText === undefined || out === undefined)
    throw new UsageError('study plan needs --recipe, --seeds and --out');
  const threads = intFlag(args, 'threads', undefined) as 1 | 2 | undefined;
  const episodes = intFlag(args, 'episodes', undefined);
  const steps = intListFlag(args, 'steps', undefined, { min: 0, max: 80 });
  const plan = writePlan(out, {
    ...definedFields({ steps }),
    recipe,
    seeds: parseSeeds(seedsText),
    evalSeed: intFlag(args, 'eval-seed', 1),
    ...definedFields({ threads, episodes }),
  });
  if (boolFlag(args, 'json')) return printJson({ dir: plan.dir, jobs: plan.jobs });
  for (const job of plan.jobs) process.stdout.write(`${jobLine(job)}\n`);
  process.stdout.write(`${plan.dir}: ${count(plan.jobs.length, 'job')} planned\n`);
}
