import { z } from 'zod';
import {
  devTasks,
  between,
  harnessShape,
  integer,
  HELD_OUT_VARIANTS,
  makeTasks,
  splitOptions,
  trainingHarness,
  trainingMinusDev,
  type Task,
} from '../gym/index.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';

/**
 * Training hyper-parameters. Together with the harness fields they form `RLConfig`, the one
 * validated object that both training and evaluation take, so no field can silently differ.
 * Every default here moves a reported number; docs/TRAINING.md explains each choice.
 */
export const trainShape = {
  seed: integer(0, 2_147_483_647)
    .default(0)
    .describe(
      "master seed: the RL seed (task order, groups, minibatches, every GRPO segment), and the base agent's (init, BC demos) unless baseSeed is given",
    ),
  baseSeed: integer(0, 2_147_483_647)
    .optional()
    .describe(
      "seed of the RL base agent (initial weights, BC demos, step 0's evalPass); absent: seed draws them too. Runs with one baseSeed and any seed share a byte-identical step 0 (docs/TRAINING-DESIGN.md)",
    ),
  bcSteps: integer(0, 10_000).default(80).describe('behaviour-cloning optimizer steps (the RL base agent)'),
  bcBatchSize: integer(1, 256).default(64).describe('demonstration episodes per BC step'),
  bcLearningRate: z
    .number()
    .positive()
    .max(1)
    .default(3e-3)
    .describe('Adam learning rate for behaviour cloning'),
  groupSize: integer(2, 32)
    .default(8)
    .describe('episodes per task per GRPO group (advantages are relative to the group)'),
  steps: integer(0, 10_000).default(80).describe('GRPO steps in all'),
  segmentSteps: integer(1, 10_000)
    .default(10)
    .describe('GRPO steps per segment; Adam restarts and a snapshot is frozen after each'),
  learningRate: z.number().positive().max(1).default(1e-3).describe('Adam learning rate for GRPO'),
  tasksPerStep: integer(1, 1000)
    .optional()
    .describe(
      'training tasks a GRPO step plays, the next ones of a seeded order (each pass over the tasks a permutation of them drawn from seed); absent: every training task every step, in a fixed order',
    ),
  minibatchSize: integer(1, 10_000)
    .optional()
    .describe(
      "rollouts per Adam step: each update epoch goes through the step's rollouts in a seeded shuffled order, one Adam step per minibatch (the last may be smaller); absent: one full-batch Adam step per epoch",
    ),
  clipEpsilon: z
    .number()
    .positive()
    .max(1)
    .default(0.2)
    .describe('PPO-style clip range of the probability ratio'),
  klCoef: between(0, 10)
    .default(0)
    .describe('weight of the k3 KL penalty to the reference (base) policy; 0 = no reference'),
  entropyCoef: between(0, 10)
    .default(0.01)
    .describe("weight of an entropy bonus on the policy's action tokens (PPO's c2); 0 = none"),
  scaleRewards: z
    .boolean()
    .default(true)
    .describe('divide group-relative advantages by the group std (false: mean-centre only)'),
  updateEpochs: integer(1, 64).default(4).describe("optimizer passes over each step's rollouts"),
  maxGradNorm: z
    .number()
    .positive()
    .max(1000)
    .default(1)
    .describe('clip the gradient to this global L2 norm before each Adam step'),
  parallel: z
    .boolean()
    .default(true)
    .describe(
      'play rollouts and compute gradients on two threads (both cores); changes numbers only by float rounding',
    ),
  devSplit: z
    .boolean()
    .default(false)
    .describe(
      'train on the 15 training tasks outside the development split (variant 3 of every type) and measure evalPass on those five instead of the held-out tasks; for choosing a recipe',
    ),
  demoReadTwice: between(0, 1)
    .default(0.15)
    .describe('probability that a demonstration reads the source a second time before editing'),
  demoSkipTest: between(0, 1)
    .default(0.25)
    .describe('probability that a demonstration submits right after its edit, without testing'),
  evalEvery: integer(1, 10_000).default(10).describe('GRPO steps between held-out evalPass measurements'),
  evalEpisodesPerTask: integer(1, 256).default(4).describe('episodes per held-out task in evalPass'),
};

export const TrainSchema = z.object(trainShape).strict();
export const RLConfigSchema = z.object({ ...harnessShape, ...trainShape }).strict();
export type RLConfig = z.infer<typeof RLConfigSchema>;

/**
 * Parses an RLConfig. Throws an Error whose one-line message names the bad fields, each under
 * `where` (`invalid config: config.steps: Too big: expected number to be <=10000; ...`).
 */
export function parseRLConfig(input: unknown, { where = 'config' } = {}): RLConfig {
  const result = RLConfigSchema.safeParse(input);
  if (!result.success) throw new Error(`invalid config: ${formatZodIssues(result.error.issues, { where })}`);
  const config = result.data;
  if (config.tasksPerStep !== undefined) {
    const trainingTasks = splitTasks(config).train.length;
    if (config.tasksPerStep > trainingTasks)
      throw new Error(
        `invalid config: ${where}.tasksPerStep ${config.tasksPerStep} is more than the ${trainingTasks} training tasks of this split`,
      );
  }
  return config;
}

/**
 * The tasks a run trains on and the tasks its `evalPass` measures. Normally the training and the
 * held-out tasks of the config's split. With `devSplit`, the development split is carved out of
 * the training tasks (variant 3 of every type, five tasks): the run trains on the other 15 and
 * measures those five, and never plays a held-out task. Recipe choices are made this way, so
 * that the held-out tasks stay a test set (chapter 17.8).
 */
export function splitTasks(config: RLConfig): { train: Task[]; heldOut: Task[] } {
  const options = splitOptions(config);
  if (measuresDevSplit(config)) return { train: trainingMinusDev(options), heldOut: devTasks(options) };
  // Under the type split the other types' held-out variants are not trained on either, so that
  // a run can be measured on held-out variants of the seen types as well (chapter 17.6).
  if (config.split === 'type')
    return {
      train: makeTasks('train', options).filter((task) => !HELD_OUT_VARIANTS.includes(task.variant)),
      heldOut: makeTasks('heldout', options),
    };
  return { train: makeTasks('train', options), heldOut: makeTasks('heldout', options) };
}

/** Whether a run is measured on the development split (`devSplit`, which the type split ignores) rather than on held-out tasks. */
export function measuresDevSplit(config: RLConfig): boolean {
  return config.devSplit && config.split !== 'type';
}

/** The default training run's config: the training harness plus the training defaults. */
export function defaultRLConfig(overrides: Record<string, unknown> = {}): RLConfig {
  return parseRLConfig({ ...trainingHarness(), ...overrides });
}

/**
 * The fields in which two run configs differ. The length of the run (`steps`) is not one: a run
 * may be resumed with more steps, and its checkpoints up to the old length stay the same. The
 * one rule for "is this folder a run of this recipe" (training's resume check and the
 * experiments' seed runs).
 */
export function configDifferences(
  before: Readonly<Record<string, unknown>>,
  now: Readonly<Record<string, unknown>>,
): string[] {
  return Object.keys({ ...before, ...now }).filter(
    (key) => key !== 'steps' && JSON.stringify(before[key]) !== JSON.stringify(now[key]),
  );
}

/** The tiny recipe of smoke runs: snapshots every step to step 8 instead of every 10 to 80. */
export const SMOKE_CONFIG = {
  bcSteps: 30,
  bcBatchSize: 16,
  groupSize: 2,
  segmentSteps: 1,
  steps: 8,
  updateEpochs: 1,
  evalEpisodesPerTask: 1,
  evalEvery: 8,
  parallel: false,
};
