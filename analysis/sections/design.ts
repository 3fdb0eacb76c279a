/**
 * The numbers of `npm run exp:design` (experiments/design.ts): the training design of
 * docs/TRAINING-DESIGN.md on the held-out tasks, not adopted (its development-split check failed):
 * 17.4 in the chapter's own design (section 3, study 1), the nested split of training noise
 * (study 3), and the Adam-restart and untrained-words claims (section 4).
 */
import { z } from 'zod';
import {
  mean,
  meanTInterval,
  nestedNoiseStandardDeviations,
  noiseStandardDeviations,
  pairedTInterval,
  sampleStandardDeviation,
} from '../../eval/index.ts';
import { formatZodIssues } from '../../lib/zodIssues.ts';
import { InputError } from '../../lib/errors.ts';
import { Rng } from '../../lib/rng.ts';
import { evaluationOf, sharedSeeds, type StudyResults } from '../../study/index.ts';
import { recordOf } from '../../lib/collections.ts';
import { reproducibleStanding, rulePower } from '../claims.ts';

/** The chapter's two training claims are read with this margin in held-out pass@1 (docs/TRAINING-DESIGN.md, section 4). */
const CLAIM_MARGIN = 0.05;
/** Simulations of each coverage figure. */
const SIMULATIONS = 2000;

const passAt = (results: StudyResults, seed: number, step: number, label = 'a') =>
  evaluationOf(results, seed, step, label).passAt1;

/**
 * 17.4 read as the chapter reads it (docs/CLAIMS.md, section 5): each seed's two independent
 * evaluations at step 30, the training- and evaluation-noise SDs, and the standing of "highly
 * reproducible" (a training-noise SD of zero).
 */
export function chapterSeeds(results: StudyResults, { seed }: { seed: number }) {
  const a = results.seeds.map((s) => passAt(results, s, 30, 'a'));
  const b = results.seeds.map((s) => passAt(results, s, 30, 'b'));
  const noise = noiseStandardDeviations(a, b);
  const truth = { training: noise.training.estimate, evaluation: noise.evaluation.estimate };
  return {
    coverage: noiseCoverage(truth, a.length, new Rng(seed).fork('design/chapter-coverage')),
    seeds: results.seeds.map((seed, i) => ({ seed, a: a[i]!, b: b[i]!, mean: (a[i]! + b[i]!) / 2 })),
    episodesPerTask: results.plan.measure.episodes,
    tasks: results.tasks.length,
    noise,
    standing: reproducibleStanding(noise),
  };
}

/** How often each interval `draw` returns covers its part's truth, over SIMULATIONS draws. */
function coverageOf<K extends string>(
  truth: Record<K, number>,
  draw: () => Record<K, { low: number; high: number }>,
) {
  const parts = Object.keys(truth) as K[];
  const covered = recordOf(parts, () => 0);
  for (let sim = 0; sim < SIMULATIONS; sim += 1) {
    const intervals = draw();
    for (const part of parts)
      if (intervals[part].low <= truth[part] && truth[part] <= intervals[part].high) covered[part] += 1;
  }
  return { truth, simulations: SIMULATIONS, ...recordOf(parts, (part) => covered[part] / SIMULATIONS) };
}

/** `noiseStandardDeviations`' two intervals at `seeds` seeds in a normal world with the given SDs. */
function noiseCoverage(truth: { training: number; evaluation: number }, seeds: number, rng: Rng) {
  return coverageOf<'training' | 'evaluation'>(truth, () => {
    const means = Array.from({ length: seeds }, () => truth.training * rng.normal());
    return noiseStandardDeviations(
      means.map((m) => m + truth.evaluation * rng.normal()),
      means.map((m) => m + truth.evaluation * rng.normal()),
    );
  });
}

/** `nestedNoiseStandardDeviations`' three intervals at this design (B base agents x R seeds, two evaluations each) in a normal world with the given SDs. */
function nestedCoverage(
  truth: { base: number; rl: number; evaluation: number },
  { groups, perGroup }: { groups: number; perGroup: number },
  rng: Rng,
) {
  return coverageOf<'base' | 'rl' | 'evaluation'>(truth, () => {
    const a: number[][] = [];
    const b: number[][] = [];
    for (let g = 0; g < groups; g += 1) {
      const u = truth.base * rng.normal();
      const means = Array.from({ length: perGroup }, () => u + truth.rl * rng.normal());
      a.push(means.map((m) => m + truth.evaluation * rng.normal()));
      b.push(means.map((m) => m + truth.evaluation * rng.normal()));
    }
    return nestedNoiseStandardDeviations(a, b);
  });
}

/**
 * The nested study at `step`: training noise split into a base-agent and an RL component beside
 * evaluation noise (`bases[g]`: base agent g's study, its first `perGroup` seeds), with each
 * interval's coverage simulated at this design in the fitted world (the estimates as truths) and in
 * one where the base-agent component is as large as the RL one.
 */
export function nestedSplit(
  bases: readonly StudyResults[],
  step: number,
  { perGroup, seed }: { perGroup: number; seed: number },
) {
  const seedsOf = (results: StudyResults) => results.seeds.slice(0, perGroup);
  const evaluations = (label: string) =>
    bases.map((results) => seedsOf(results).map((s) => passAt(results, s, step, label)));
  const components = nestedNoiseStandardDeviations(evaluations('a'), evaluations('b'));
  const fitted = recordOf(['base', 'rl', 'evaluation'] as const, (part) => components[part].estimate);
  const design = { groups: bases.length, perGroup };
  const rng = new Rng(seed).fork(`design/nested-coverage/step-${step}`);
  return {
    step,
    seeds: bases.map((results) => seedsOf(results)),
    components,
    coverage: {
      fitted: nestedCoverage(fitted, design, rng.fork('fitted')),
      baseAsRl: nestedCoverage({ ...fitted, base: fitted.rl }, design, rng.fork('base-as-rl')),
    },
  };
}

/**
 * A training claim of section 4 read by its rule: `b` minus `a`, paired by RL seed, a t interval
 * (95%); it holds inside the margin, fails when it excludes 0 and reaches beyond the margin, and
 * is open otherwise, with the power of the paired t test at the margin and the interval's
 * coverage simulated at this many seeds (`differenceCoverage`).
 */
function marginClaim(a: readonly number[], b: readonly number[], rng: Rng) {
  const difference = pairedTInterval(a, b);
  const inside = difference.low >= -CLAIM_MARGIN && difference.high <= CLAIM_MARGIN;
  const excludesZero = difference.low > 0 || difference.high < 0;
  return {
    ...difference,
    standing: inside ? 'holds' : excludesZero ? 'fails' : 'open',
    belowMarginShown: inside && excludesZero,
    power: rulePower(difference, { gain: CLAIM_MARGIN, level: 0.95 }),
    coverage: differenceCoverage(a, b, rng),
  };
}

/**
 * How often the paired t interval covers the mean difference at this many seeds, in two worlds
 * fitted to the observed differences: normal with their mean and SD, and their own empirical
 * distribution (seeds drawn with replacement; its mean is the truth).
 */
function differenceCoverage(a: readonly number[], b: readonly number[], rng: Rng) {
  const differences = b.map((value, i) => value - a[i]!);
  const n = differences.length;
  const truth = mean(differences);
  const sd = sampleStandardDeviation(differences);
  const world = (draw: () => number) =>
    coverageOf({ difference: truth }, () => ({ difference: meanTInterval(Array.from({ length: n }, draw)) }))
      .difference;
  const normal = rng.fork('normal');
  const empirical = rng.fork('empirical');
  return {
    simulations: SIMULATIONS,
    normal: world(() => truth + sd * normal.normal()),
    empirical: world(() => differences[empirical.int(n)]!),
  };
}

/** The Adam-restart claim at `step` (section 4.1): uninterrupted minus segmented held-out pass@1. */
export function restartClaim(
  segmented: StudyResults,
  uninterrupted: StudyResults,
  step: number,
  { seed = 0 }: { seed?: number } = {},
) {
  const seeds = sharedSeeds(segmented, uninterrupted);
  if (seeds.length < 2)
    throw new InputError(
      `${uninterrupted.plan.dir}: shares ${seeds.length} RL seeds with ${segmented.plan.dir} (the same seed, step-0 agent and episodes); the restart claim pairs at least 2`,
    );
  return {
    step,
    seeds,
    ...marginClaim(
      seeds.map((s) => passAt(segmented, s, step)),
      seeds.map((s) => passAt(uninterrupted, s, step)),
      new Rng(seed).fork(`design/restart-coverage/step-${step}`),
    ),
  };
}

/** Redraws of each agent's untrained words (section 4.2), at this chapter step's evaluation a. */
export const UNTRAINED_WORDS_DRAWS = 5;
export const UNTRAINED_WORDS_STEP = 80;
/** The file exp:design-words writes beside the study it redraws. */
export const UNTRAINED_WORDS_FILE = 'untrained-words.json';

const untrainedWordsSchema = z
  .object({
    format: z.literal(1),
    study: z.string(),
    step: z.literal(UNTRAINED_WORDS_STEP),
    label: z.literal('a'),
    draws: z.literal(UNTRAINED_WORDS_DRAWS),
    words: z.array(z.string()),
    backend: z.string(),
    seeds: z.array(
      z
        .object({
          seed: z.number().int(),
          checkpointChecksum: z.string(),
          evalSeed: z.string(),
          trained: z.number().min(0).max(1),
          redrawn: z.array(z.number().min(0).max(1)).length(UNTRAINED_WORDS_DRAWS),
          moved: z.object({ redrawn: z.number().min(0), others: z.number().min(0) }).strict(),
        })
        .strict(),
    ),
  })
  .strict();

export type UntrainedWords = z.infer<typeof untrainedWordsSchema>;

/** exp:design-words' record, checked: its fields (`where` names the file in an error). */
export function parseUntrainedWords(value: unknown, where: string): UntrainedWords {
  const parsed = untrainedWordsSchema.safeParse(value);
  if (!parsed.success) throw new InputError(`${where}: ${formatZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * The untrained-words claim (section 4.2): each seed's mean held-out pass@1 over its redraws minus
 * the trained agent's, on the same episodes. Every seed of the record must be an agent of
 * `segmented` (its checkpoint checksum, eval seed and pass@1 those of the study's evaluation).
 */
export function untrainedWordsClaim(
  segmented: StudyResults,
  record: UntrainedWords,
  where: string,
  { seed = 0 }: { seed?: number } = {},
) {
  if (record.seeds.length < 2)
    throw new InputError(`${where}: holds ${record.seeds.length} seeds; the claim pairs at least 2`);
  for (const row of record.seeds) {
    const study = evaluationOf(segmented, row.seed, record.step, record.label);
    if (
      row.checkpointChecksum !== study.checkpointChecksum ||
      row.evalSeed !== study.evalSeed ||
      row.trained !== study.passAt1
    )
      throw new InputError(
        `${where}: seed ${row.seed} is not the agent and episodes of ${segmented.plan.dir}'s step-${record.step} evaluation`,
      );
  }
  const redrawnMeans = record.seeds.map((row) => mean(row.redrawn));
  return {
    step: record.step,
    words: record.words,
    draws: record.draws,
    backend: record.backend,
    seeds: record.seeds.map(({ seed, trained }, i) => ({ seed, trained, redrawn: redrawnMeans[i]! })),
    moved: {
      redrawn: mean(record.seeds.map((row) => row.moved.redrawn)),
      others: mean(record.seeds.map((row) => row.moved.others)),
    },
    ...marginClaim(
      record.seeds.map((row) => row.trained),
      redrawnMeans,
      new Rng(seed).fork('design/untrained-words-coverage'),
    ),
  };
}

/** What exp:design reports; a part whose studies are not finished is null. */
export function designNumbers(studies: {
  chapter?: StudyResults | undefined;
  bases?: readonly StudyResults[] | undefined;
  segmented?: StudyResults | undefined;
  uninterrupted?: StudyResults | undefined;
  untrainedWords?: { record: UntrainedWords; where: string } | undefined;
  perGroup: number;
  seed: number;
}) {
  const { chapter, bases, segmented, uninterrupted, untrainedWords, perGroup, seed } = studies;
  return {
    protocol: 'docs/TRAINING-DESIGN.md, sections 3 and 4',
    adopted: false,
    margin: CLAIM_MARGIN,
    chapterSeeds: chapter === undefined ? null : chapterSeeds(chapter, { seed }),
    nested:
      bases === undefined
        ? null
        : ([30, 80] as const).map((step) => nestedSplit(bases, step, { perGroup, seed })),
    restarts:
      segmented === undefined || uninterrupted === undefined
        ? null
        : restartClaim(segmented, uninterrupted, 80, { seed }),
    untrainedWords:
      segmented === undefined || untrainedWords === undefined
        ? null
        : untrainedWordsClaim(segmented, untrainedWords.record, untrainedWords.where, { seed }),
  };
}

export type NumbersDesign = ReturnType<typeof designNumbers>;
