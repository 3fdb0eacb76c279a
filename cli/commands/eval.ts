import { existsSync } from 'node:fs';
import {
  backendFlag,
  boolFlag,
  choiceFlag,
  type Command,
  type CommandArgs,
  decimals,
  definedFields,
  type FlagRange,
  type FlagSpec,
  InputError,
  integers,
  intFlag,
  numberFlag,
  outFileFlag,
  printJson,
  SEED_RANGE,
  stringFlag,
  switchFlag,
  UsageError,
  valueFlag,
} from '../args.ts';
import { BACKEND_PREFERENCES, evaluate } from '../../agent/index.ts';
import { firstEditCounts, type HarnessInput } from '../../gym/index.ts';
import { groupOutcomes, writeEvaluation } from '../../eval/io/index.ts';
import { DEFAULT_REPLICATES } from '../../eval/index.ts';
import { computeMetrics, metricsStream } from '../../eval/report/metrics.ts';
import { coverageClause } from '../../publish/coverageNotes.ts';
import { TASK_BOOTSTRAP_METHOD } from '../../analysis/index.ts';
import { count } from '../../lib/text.ts';

/**
 * pass@1's interval as the chapter gives it (17.3), the one `metrics` prints for the file an
 * evaluation writes, number for number: tasks resampled with their episodes, from metrics' stream;
 * the exact interval over the tasks where every task has the same rate; null from one task.
 */
export function evaluationInterval(
  records: ReadonlyArray<{ task: string; sample: number; success: boolean }>,
  episodes: number,
) {
  const rows = records.map(({ task, sample, success }, i) => ({
    task,
    sample,
    passed: success,
    line: i + 2,
  }));
  const { tasks } = groupOutcomes(rows);
  const { estimate, low, high, method } = computeMetrics(tasks, {
    ks: [1],
    rng: metricsStream(),
  }).meanAccuracy;
  if (low === null || high === null) return null;
  return {
    estimate,
    low,
    high,
    method:
      method === undefined
        ? `task bootstrap, ${DEFAULT_REPLICATES} replicates, 95%`
        : 'exact over tasks, 95% (every task the same rate: the task bootstrap has no spread)',
    coverage: coverageClause(TASK_BOOTSTRAP_METHOD, `${tasks.length} tasks x ${episodes} episodes`) ?? null,
  };
}

/**
 * The flags of every command that plays a checkpoint (eval, probe); each says in its own words
 * what its episodes and seed are. Every episode's record is kept while playing (about 18 KB
 * each), hence the bound on the episodes.
 */
export const checkpointFlags = {
  checkpoint: valueFlag('checkpoint folder, e.g. runs/default/step-80'),
  episodes: (description: string) => valueFlag(description, { default: '32', range: integers(1, 1024) }),
  seed: (description: string, defaultSeed = 0) =>
    valueFlag(description, { default: String(defaultSeed), range: SEED_RANGE }),
  backend: valueFlag(`tfjs backend: ${BACKEND_PREFERENCES.join(', ')}`, { default: 'auto' }),
};

/** An InputError when the checkpoint folder is missing; checked after the flags, so that a usage error (exit 2) is reported first. */
export function checkCheckpointFolder(dir: string): void {
  if (!existsSync(dir))
    throw new InputError(`checkpoint folder '${dir}' does not exist; train one with \`npm run train\``);
}

/** `op count, op count` from most to least frequent (ties in the order the counts hold them). */
export function topOps(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([op, count]) => `${op} ${count}`)
    .join(', ');
}

/** One of eval's harness flags: a single-field change to the harness the checkpoint recorded (its range: gym/config.ts's). */
const harnessFlag = (description: string, range?: FlagRange): FlagSpec =>
  valueFlag(description, { default: 'the harness value', ...(range === undefined ? {} : { range }) });

/** What --max-edits takes in place of a number: no edit budget. */
const UNLIMITED = 'unlimited';

const harnessFlags = {
  temperature: harnessFlag('sampling temperature (0 = greedy)', decimals(0, 10)),
  'max-turns': harnessFlag('turn budget per episode', integers(1, 1000)),
  'max-edits': harnessFlag("edit budget per episode, or 'unlimited'", {
    ...integers(1, 1000),
    word: UNLIMITED,
  }),
  rename: harnessFlag('randomize function names: on | off'),
  'rename-pool': harnessFlag('rename pool: all | train | heldout'),
  reward: harnessFlag('reward source: hidden | public (success is always scored on hidden tests)'),
};

/** The command line's single-field changes to the harness (applied over the checkpoint's recorded one). */
function harnessOverrides(args: CommandArgs): HarnessInput {
  const { rename, ...overrides } = {
    temperature: numberFlag(args, 'temperature', undefined),
    maxTurns: intFlag(args, 'max-turns', undefined),
    maxEdits: stringFlag(args, 'max-edits') === UNLIMITED ? null : intFlag(args, 'max-edits', undefined),
    rename: choiceFlag(args, 'rename', ['on', 'off'] as const, undefined),
    renamePool: choiceFlag(args, 'rename-pool', ['all', 'train', 'heldout'] as const, undefined),
    reward: choiceFlag(args, 'reward', ['hidden', 'public'] as const, undefined),
  };
  return definedFields({ ...overrides, randomizeNames: rename === undefined ? undefined : rename === 'on' });
}

export const command: Command = {
  name: 'eval',
  summary:
    'Evaluate a checkpoint: per-task success counts on hidden tests, pass@1, first-edit ops, read calls',
  usage:
    'tinyagent eval --checkpoint DIR [--episodes N] [--split heldout|train|all] [--seed S] [--temperature T] [harness flags] [--out FILE [--transcripts]] [--json]',
  flags: {
    checkpoint: checkpointFlags.checkpoint,
    episodes: checkpointFlags.episodes('episodes per task'),
    split: valueFlag(
      'tasks: heldout | train | all | dev (the development split: variant 3 of every training type)',
      { default: 'heldout' },
    ),
    seed: checkpointFlags.seed("seed of env resets and token sampling (1: the experiments' seed)", 1),
    ...harnessFlags,
    out: valueFlag(
      'also write one row per episode (task, sample, passed, and every field of the episode record) with a provenance header, as JSON lines for `tinyagent metrics` and `compare`: a FILE.jsonl',
    ),
    transcripts: switchFlag(
      "with --out: add each episode's transcript to its row, turn by turn (what the policy saw, what it did), for `tinyagent view`; about 2.7 times the file",
    ),
    backend: checkpointFlags.backend,
    json: switchFlag('print JSON on stdout'),
  },
  async run(args) {
    const dir = stringFlag(args, 'checkpoint');
    if (dir === undefined) throw new UsageError('--checkpoint DIR is required');
    const episodes = intFlag(args, 'episodes', 32);
    const split = choiceFlag(args, 'split', ['heldout', 'train', 'all', 'dev'] as const, 'heldout');
    const seed = intFlag(args, 'seed', 1);
    const backend = backendFlag(args, BACKEND_PREFERENCES, 'auto');
    const harness = harnessOverrides(args);
    const transcripts = boolFlag(args, 'transcripts');
    if (transcripts && args.flags.out === undefined)
      throw new UsageError('--transcripts goes into the result file: give --out FILE too');
    // Before the episodes are played, so that a FIFO or a symlink at --out costs no evaluation.
    const out = outFileFlag(args, { extension: '.jsonl', format: 'JSON lines, one row per episode' });
    checkCheckpointFolder(dir);
    const started = performance.now();
    const result = await evaluate({ checkpoint: dir, harness, split, episodes, seed, backend, transcripts });
    const seconds = (performance.now() - started) / 1000;

    const { provenance, perTask: tasks } = result;
    const firstEdit = firstEditCounts(result.records);
    const firstEditByTask = Object.fromEntries(
      tasks.map((count) => [
        count.name,
        firstEditCounts(result.records.filter((record) => record.task === count.name)),
      ]),
    );
    const meanReadCalls =
      result.records.reduce((sum, record) => sum + record.readCalls, 0) / result.records.length;
    const passAt1Interval = evaluationInterval(result.records, episodes);
    const report = {
      passAt1: result.passAt1,
      passAt1Interval,
      perTask: tasks,
      firstEdit,
      firstEditByTask,
      meanReadCalls,
      episodesPerTask: episodes,
      split,
      seed,
      harness: provenance.harness,
      harnessHash: provenance.harnessHash,
      checkpoint: provenance.checkpoint,
      backend: provenance.backend,
      packageVersion: provenance.packageVersion,
      seconds,
    };
    if (out !== undefined) writeEvaluation(out, result);
    if (boolFlag(args, 'json')) return printJson(report);
    const interval =
      passAt1Interval === null
        ? 'interval n/a: one task (a task-level interval needs at least 2)'
        : `${passAt1Interval.method.startsWith('exact') ? 'exact over tasks' : 'task bootstrap'} 95% [${passAt1Interval.low.toFixed(3)}, ${passAt1Interval.high.toFixed(3)}] over ${tasks.length} tasks${passAt1Interval.coverage === null ? '' : `; ${passAt1Interval.coverage.text}`}`;
    const lines = [
      `checkpoint ${dir} (step ${String(provenance.checkpoint?.step ?? null)}), backend ${String(provenance.backend)}, harness ${provenance.harnessHash}, ${count(episodes, 'episode')} per task, ${seconds.toFixed(1)}s`,
      ...tasks.map(
        (task) =>
          `  ${task.name.padEnd(16)} ${task.type.padEnd(11)} ${String(task.successes).padStart(3)}/${task.episodes}   first edit: ${topOps(firstEditByTask[task.name]!)}`,
      ),
      `pass@1 ${result.passAt1.toFixed(3)} (${interval}); mean read calls ${meanReadCalls.toFixed(2)}`,
      `first edit: ${topOps(firstEdit)}`,
      ...(out === undefined ? [] : [`wrote ${count(result.records.length, 'episode')} to ${out}`]),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
