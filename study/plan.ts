import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  devTasks,
  harnessHash,
  makeTasks,
  parseHarness,
  pickHarness,
  splitOptions,
  type HarnessInput,
  type Task,
} from '../gym/index.ts';
import { projectVersion } from '../lib/version.ts';
import {
  defaultRLConfig,
  measuresDevSplit,
  parseRLConfig,
  SMOKE_CONFIG,
  trainingModelConfig,
  type RLConfig,
} from '../train/index.ts';
import { removeDeadTemporaries, writeFilesAtomic } from '../lib/atomic.ts';
import { InputError, UsageError } from '../lib/errors.ts';
import { existsInside, explained, fileKind, orUndefined, readInside, readRegularFile } from '../lib/files.ts';
import { canonicalJson, duplicatedKeyPath } from '../lib/json.ts';
import { Rng } from '../lib/rng.ts';

/** The layout of a study folder; a folder of another format is refused, not guessed at. */
const STUDY_FORMAT = 1;

/** The chapter's checkpoints (step 0 the base agent, then every 10 GRPO steps to 80). */
export const CHAPTER_STEPS = [0, 10, 20, 30, 40, 50, 60, 70, 80] as const;

export type Measure = ReturnType<typeof measureFor>;

export interface TrainJob {
  index: number;
  id: string;
  kind: 'train';
  seed: number;
  /** One and two threads round differently, so the count is one of the job's inputs. */
  threads: 1 | 2;
  dependsOn: number[];
}

export interface EvalJob {
  index: number;
  id: string;
  kind: 'eval';
  seed: number;
  /** The checkpoint's step in the recipe (chapterStep / stepScale). */
  step: number;
  chapterStep: number;
  /** 'a' (every step), 'b' (the repeat), 'temperature-T' (17.5). */
  label: string;
  /** Fields over the checkpoint's own harness. */
  harness: HarnessInput;
  harnessHash: string;
  evalSeed: string;
  episodes: number;
  dependsOn: number[];
}

export type Job = TrainJob | EvalJob;

export interface StudyHeader {
  format: typeof STUDY_FORMAT;
  packageVersion: string;
  recipe: string;
  config: RLConfig;
  configHash: string;
  seeds: number[];
  evalSeed: number;
  measure: Measure;
}

export interface Plan extends StudyHeader {
  dir: string;
  jobs: Job[];
}

const HEADER_FILE = 'study.json';
const PLAN_FILE = 'plan.jsonl';

const sha = (value: unknown, length = 16) =>
  createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, length);

/** The split a study's evaluations play: held-out, or the development split's under `devSplit` (docs/RECIPES.md). */
export function measuredSplit(plan: Pick<Plan, 'config'>): 'heldout' | 'dev' {
  return measuresDevSplit(plan.config) ? 'dev' : 'heldout';
}

export function measuredTasks(plan: Pick<Plan, 'config'>): Task[] {
  const options = splitOptions(plan.config);
  return measuredSplit(plan) === 'dev' ? devTasks(options) : makeTasks('heldout', options);
}

/** The measured split as reports name it. */
export function splitName(plan: Pick<Plan, 'config'>): string {
  return measuredSplit(plan) === 'dev' ? 'development-split' : 'held-out';
}

/** The hash of a recipe: its config without the seed, which each job sets. */
export function configHash(config: RLConfig): string {
  const { seed: _seed, ...rest } = config;
  return sha(rest);
}

/** What `action` returns; an error it throws becomes the one `reworded` makes of its message. */
function rewording<T>(action: () => T, reworded: (message: string) => Error): T {
  try {
    return action();
  } catch (error) {
    throw reworded((error as Error).message);
  }
}

/** A recipe: `default`, `smoke`, or a JSON file of RLConfig fields over the defaults; a bad field is an InputError. */
function resolveRecipe(recipe: string, threads?: 1 | 2): RLConfig {
  let overrides: Record<string, unknown>;
  if (recipe === 'default') overrides = {};
  else if (recipe === 'smoke') overrides = { ...SMOKE_CONFIG };
  else {
    const text = readRegularFile(recipe, '--recipe');
    const parsed: unknown = rewording(
      () => JSON.parse(text),
      () => new InputError(`${recipe}: not valid JSON; a recipe is an object of training config fields`),
    );
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new InputError(
        `${recipe}: a recipe is an object of training config fields, e.g. {"entropyCoef": 0}`,
      );
    const twice = duplicatedKeyPath(text);
    if (twice !== undefined) throw new InputError(`${recipe}: the key '${twice}' is given twice; keep one`);
    overrides = parsed as Record<string, unknown>;
    if ('seed' in overrides)
      throw new InputError(`${recipe}: a recipe has no seed; give the seeds with --seeds`);
  }
  // The recipe is checked as written before --threads sets `parallel`, which would hide a bad value there.
  const config = rewording(
    () => defaultRLConfig(overrides),
    (message) => new InputError(`${recipe}: ${message}`),
  );
  return threads === undefined ? config : defaultRLConfig({ ...config, parallel: threads === 2 });
}

/** The steps a training of `config` leaves a checkpoint at: 0, every `segmentSteps`, and its last. */
export function snapshotSteps(config: RLConfig): number[] {
  const snapshots = new Set([0, config.steps]);
  for (let step = config.segmentSteps; step < config.steps; step += config.segmentSteps) snapshots.add(step);
  return [...snapshots].sort((a, b) => a - b);
}

/**
 * What a study of `config` measures of every seed: the chapter `steps` (each a snapshot, at step s /
 * `stepScale`), `repeatSteps` evaluated again with an independent eval seed (17.4) and
 * `temperatures` at the last step besides the training harness's (17.5).
 */
function measureFor(
  config: RLConfig,
  { episodes, steps = [...CHAPTER_STEPS] }: { episodes?: number | undefined; steps?: number[] | undefined },
) {
  const unknown = steps.filter((step) => !(CHAPTER_STEPS as readonly number[]).includes(step));
  if (unknown.length > 0 || !steps.includes(0))
    throw new UsageError(
      `--steps must list chapter steps (${CHAPTER_STEPS.join(', ')}), 0 among them; got ${steps.join(',')}`,
    );
  if (config.steps < 1)
    throw new InputError(
      `the recipe trains ${config.steps} GRPO steps: a study measures checkpoints of a training, so use steps 80 with segmentSteps 10 (or 8 with 1)`,
    );
  // The policy reads contextTokens words and writes up to maxActionTokens: beyond the model's context every training would fail after behaviour cloning.
  const { contextLength } = trainingModelConfig();
  if (config.contextTokens + config.maxActionTokens > contextLength)
    throw new InputError(
      `the recipe's contextTokens ${config.contextTokens} plus maxActionTokens ${config.maxActionTokens} exceed the model's context length ${contextLength}; use at most ${contextLength} in all`,
    );
  const stepScale = 80 / config.steps;
  const snapshots = new Set(snapshotSteps(config));
  const sorted = [...new Set(steps)].sort((a, b) => a - b);
  const missing = sorted.filter((step) => !snapshots.has(step / stepScale));
  if (missing.length > 0)
    throw new InputError(
      `the recipe's snapshots (every ${config.segmentSteps} of ${config.steps} steps) do not hold the chapter's steps ${missing.join(', ')} scaled by ${stepScale}; measure other steps (--steps) or use steps 80 with segmentSteps 10 (or 8 with 1)`,
    );
  return {
    steps: sorted,
    episodes: episodes ?? (stepScale === 1 ? 64 : 8),
    stepScale,
    repeatSteps: [30, 80].filter((step) => sorted.includes(step)),
    temperatures: sorted.includes(80) ? [0, 1.3] : [],
  };
}

/** The eval seed of one evaluation of one training seed: no two training seeds share episodes. */
export function evalSeedOf(studySeed: number, trainingSeed: number, label: string): string {
  return new Rng(studySeed).fork(`train-${trainingSeed}`).fork(label).key;
}

/** Every job of a study: one training per seed (indices 0..S-1), then that seed's evaluations. */
export function planJobs(header: StudyHeader): Job[] {
  const { config, seeds, measure, evalSeed, configHash: hash } = header;
  const threads: 1 | 2 = config.parallel ? 2 : 1;
  const jobs: Job[] = seeds.map((seed, index) => ({
    index,
    id: `train-${seed}-${sha({ kind: 'train', configHash: hash, seed, threads }, 12)}`,
    kind: 'train',
    seed,
    threads,
    dependsOn: [],
  }));
  const base = pickHarness(config);
  seeds.forEach((seed, trainIndex) => {
    const evaluation = (
      chapterStep: number,
      label: string,
      harness: HarnessInput = {},
      seedLabel = label,
    ) => {
      const step = chapterStep / measure.stepScale;
      const inputs = {
        harnessHash: harnessHash(parseHarness({ ...base, ...harness }, { where: 'harness' })),
        evalSeed: evalSeedOf(evalSeed, seed, seedLabel),
        episodes: measure.episodes,
      };
      const id = sha({ kind: 'eval', configHash: hash, seed, threads, step, ...inputs }, 12);
      jobs.push({
        index: jobs.length,
        id: `eval-${seed}-${chapterStep}-${label}-${id}`,
        kind: 'eval',
        seed,
        step,
        chapterStep,
        label,
        harness,
        ...inputs,
        dependsOn: [trainIndex],
      });
    };
    for (const step of measure.steps) evaluation(step, 'a');
    for (const step of measure.repeatSteps) evaluation(step, 'b');
    // 17.5 pairs the temperatures with the training harness on the same episodes (eval seed 'a').
    for (const temperature of measure.temperatures)
      evaluation(80, `temperature-${temperature}`, { temperature }, 'a');
  });
  return jobs;
}

/** The training config's bound on `seed`, and the most seeds of one study. */
const MAX_STUDY_SEED = 2_147_483_647;
const MAX_STUDY_SEEDS = 10_000;

/** Parses `--seeds 0-15` or `0,1,5`. */
export function parseSeeds(text: string): number[] {
  const seeds: number[] = [];
  for (const part of text.split(',')) {
    const range = /^\s*(\d{1,10})\s*(?:-\s*(\d{1,10}))?\s*$/.exec(part);
    if (range === null) throw new UsageError(`--seeds must be a list like 0-15 or 0,1,2, got '${text}'`);
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from)
      throw new UsageError(`--seeds: range '${part.trim()}' runs downwards; write it ${to}-${from}`);
    if (to > MAX_STUDY_SEED)
      throw new UsageError(`--seeds: seed ${to} is above the largest, ${MAX_STUDY_SEED}`);
    if (seeds.length + (to - from + 1) > MAX_STUDY_SEEDS)
      throw new UsageError(`--seeds: at most ${MAX_STUDY_SEEDS} seeds in a study, got more in '${text}'`);
    for (let seed = from; seed <= to; seed += 1) seeds.push(seed);
  }
  if (new Set(seeds).size !== seeds.length) throw new UsageError(`--seeds lists a seed twice: '${text}'`);
  return seeds;
}

/** Writes study.json and plan.jsonl; a folder holding another plan is refused, the same plan again is a no-op. */
export function writePlan(
  dir: string,
  options: {
    recipe: string;
    seeds: number[];
    evalSeed: number;
    threads?: 1 | 2;
    episodes?: number;
    steps?: number[];
  },
): Plan {
  const { recipe, seeds, evalSeed, threads, episodes, steps } = options;
  if (dir.trim() === '') throw new UsageError('--out must name the study folder to write, got an empty path');
  if (seeds.length === 0) throw new UsageError('a study needs at least one training seed (--seeds 0-15)');
  if (seeds.length > MAX_STUDY_SEEDS)
    throw new UsageError(`a study has at most ${MAX_STUDY_SEEDS} training seeds, got ${seeds.length}`);
  const kind = orUndefined(() => statSync(dir));
  if (kind !== undefined && !kind.isDirectory())
    throw new InputError(`--out '${dir}' is ${fileKind(kind)}, not a folder; give a new or empty folder`);
  const config = resolveRecipe(recipe, threads);
  const header: StudyHeader = {
    format: STUDY_FORMAT,
    packageVersion: projectVersion(),
    recipe,
    config: { ...config, seed: 0 },
    configHash: configHash(config),
    seeds,
    evalSeed,
    measure: measureFor(config, { episodes, steps }),
  };
  const jobs = planJobs(header);
  if (existsInside(dir, HEADER_FILE, 'file')) {
    const existing = readPlan(dir);
    if (sha(existing.jobs) !== sha(jobs) || existing.configHash !== header.configHash)
      throw new InputError(
        `${dir} already holds another study's plan; choose another --out or delete the folder`,
      );
    return existing;
  }
  // What a kill between the batch's two renames leaves (plan.jsonl alone) is written over, a dead writer's temporaries removed.
  if (kind !== undefined && readdirSync(dir).some((name) => name !== PLAN_FILE && !PLAN_TEMPORARY.test(name)))
    throw new InputError(`${dir} is not empty and holds no study; choose another --out`);
  if (kind !== undefined) removeDeadTemporaries(dir);
  // One batch: a full disk leaves neither file; the header is renamed last, so a folder with a header has its whole plan.
  explained(dir, () =>
    writeFilesAtomic([
      { path: join(dir, PLAN_FILE), content: planText(jobs) },
      { path: join(dir, HEADER_FILE), content: `${JSON.stringify(header, null, 2)}\n` },
    ]),
  );
  return { ...header, dir: resolve(dir), jobs };
}

const planText = (jobs: readonly Job[]) => jobs.map((job) => JSON.stringify(job)).join('\n') + '\n';
const PLAN_TEMPORARY = /^\.(plan\.jsonl|study\.json)\.\d+\.\d+\.tmp$/;

/** The largest study.json read: one of 10,000 seeds is about 150 KB. */
const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * Reads a study folder's plan, untrusted input (a shared folder many write to): study.json is
 * checked field by field against what `study plan` writes for its config, and plan.jsonl must be
 * the plan it gives.
 */
export function readPlan(dir: string): Plan {
  let header: StudyHeader;
  let jobs: Job[];
  try {
    if (!existsInside(dir, HEADER_FILE, 'file'))
      throw new InputError(`${dir} holds no study (no ${HEADER_FILE}); write one with tinyagent study plan`);
    header = JSON.parse(
      readInside(dir, HEADER_FILE, { maxBytes: MAX_HEADER_BYTES }).toString('utf8'),
    ) as StudyHeader;
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(
      `${dir}: the study's plan is damaged (${(error as Error).message}); write it again with tinyagent study plan`,
    );
  }
  if (header?.format !== STUDY_FORMAT || header.packageVersion !== projectVersion())
    throw new InputError(
      `${dir} was written by another version (format ${String(header?.format)}, tinyagent ${String(header?.packageVersion)}; this is format ${STUDY_FORMAT}, tinyagent ${projectVersion()}); plan it again in a new folder`,
    );
  const edited = (what: string) =>
    new InputError(
      `${join(dir, HEADER_FILE)}: ${what}; the plan was edited by hand: plan the study again in a new folder`,
    );
  const config = rewording(
    () => parseRLConfig(header.config, { where: `${join(dir, HEADER_FILE)}: config` }),
    (message) => new InputError(message),
  );
  const hash = configHash(config);
  if (header.configHash !== hash)
    throw edited(`its config hashes to ${hash}, not to the configHash ${String(header.configHash)} it gives`);
  // The label is outside the config hash (the job ids), so it is checked apart: a built-in recipe must give the config.
  const { recipe } = header;
  if (typeof recipe !== 'string' || recipe.trim() === '' || /[\p{Cc}\u2028\u2029]/u.test(recipe))
    throw edited('its recipe must be default, smoke or the recipe file it was planned from');
  if (recipe === 'default' || recipe === 'smoke') {
    const labelled = configHash(resolveRecipe(recipe, config.parallel ? 2 : 1));
    if (labelled !== hash)
      throw new InputError(
        `${join(dir, HEADER_FILE)}: its recipe '${recipe}' gives the config ${labelled}, not its config ${hash}: edited by hand, or planned under other defaults; plan the study again in a new folder`,
      );
  }
  const { seeds, evalSeed } = header;
  const seed = (value: unknown) =>
    Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_STUDY_SEED;
  if (
    !Array.isArray(seeds) ||
    seeds.length === 0 ||
    seeds.length > MAX_STUDY_SEEDS ||
    !seeds.every(seed) ||
    new Set(seeds).size !== seeds.length
  )
    throw edited(
      `its seeds must be one or more distinct integers 0 to ${MAX_STUDY_SEED}, at most ${MAX_STUDY_SEEDS} of them`,
    );
  if (!seed(evalSeed)) throw edited(`its evalSeed must be an integer 0 to ${MAX_STUDY_SEED}`);
  const measure = rewording(
    () => measureFor(config, { episodes: header.measure?.episodes, steps: header.measure?.steps }),
    (message) => edited(`its measure is not one of its recipe (${message})`),
  );
  if (sha(measure) !== sha(header.measure)) throw edited('its measure is not the one its recipe gives');
  const planned = planJobs({ ...header, config, configHash: hash, measure });
  // A hand-edited line would run a job under a wrong id; a file longer than the plan is refused unread.
  const mismatch = (why: string) =>
    new InputError(
      `${dir}: plan.jsonl does not match study.json (${why}); write the plan again with tinyagent study plan`,
    );
  try {
    jobs = readInside(dir, PLAN_FILE, { maxBytes: Buffer.byteLength(planText(planned)) })
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Job);
  } catch (error) {
    throw mismatch(
      error instanceof InputError ? error.message : `not JSON lines: ${(error as Error).message}`,
    );
  }
  if (sha(planned) !== sha(jobs)) throw mismatch('other jobs');
  return { ...header, config, measure, dir: resolve(dir), jobs: planned };
}
