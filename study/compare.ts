import {
  AGGREGATE_REPS,
  bootstrapMeans,
  mean,
  pairedTInterval,
  percentileOfSorted,
  pooledStandardDeviation,
  probabilityOfImprovementInterval,
  requiredSeeds,
  requiredUnits,
  sampleStandardDeviation,
  welchInterval,
} from '../eval/index.ts';
import { InputError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import { splitName, type Plan } from './plan.ts';
import { evaluationOf, loadResults, taskRates, type StudyResults } from './results.ts';

interface Side {
  dir: string;
  recipe: string;
  seeds: number;
  mean: number;
  sd: number;
}

/** Seeds per recipe to detect the observed difference at two-sided 0.05 with power 0.8, new seeds on each side. */
export interface SeedsNeeded {
  /** The normal approximation (`requiredUnits`, sigma the pooled SD of one seed). */
  normal: number;
  /** Student's t test's exact power (noncentral t), equal variances at the pooled SD. */
  exactT: number;
  /** Welch's test, each recipe's own SD (noncentral t with Welch-Satterthwaite df); null when one recipe does not vary. */
  unequalVariances: number | null;
  /** Var(A) / Var(B) of one seed's score. */
  varianceRatio: number;
}

/** What comparing two recipes' step-80 seed scores gives, whichever studies they came from. */
export interface SeedComparison {
  /** 'paired' when at least 2 seeds are shared (same step-0 checkpoint and evaluation episodes), else 'unpaired'. */
  design: 'paired' | 'unpaired';
  /** mean(B) - mean(A) over every seed of each study. */
  difference: number;
  welch: { low: number; high: number; df: number | null };
  bootstrap: { low: number; high: number; reps: number };
  /** B - A on the shared seeds, a t interval with n - 1 df; null with fewer than 2 shared seeds. */
  paired: { seeds: number[]; difference: number; low: number; high: number; df: number } | null;
  /** null when B - A is exactly 0 or neither recipe varies: there is no observed difference to power a test for. */
  seedsNeeded: SeedsNeeded | null;
}

export interface StudyComparison extends SeedComparison {
  /** The tasks both studies evaluate, as reports name them (`held-out`, or `development-split` under devSplit). */
  split: string;
  a: Side;
  b: Side;
  /** Seeds whose step-0 checkpoint checksum and evaluation episodes are byte-identical in both studies. */
  sharedSeeds: number[];
  /** P(B > A) over seeds x tasks at step 80 (rliable), with its 95% interval from whole seeds of A and of B redrawn apart (AGGREGATE_REPS replicates). */
  probabilityOfImprovement: { estimate: number; low: number; high: number; reps: number };
}

/**
 * The seeds two studies share: the same seed whose step-0 evaluation (before any training that
 * a recipe changes) records the same checkpoint checksum, harness, evaluation seed and the same
 * outcome of every episode. Such seeds start from one agent and are scored on one set of
 * episodes, so their difference at step 80 is the recipes' alone.
 */
export function sharedSeeds(a: StudyResults, b: StudyResults): number[] {
  return a.seeds.filter((seed) => {
    if (!b.seeds.includes(seed)) return false;
    const [x, y] = [evaluationOf(a, seed, 0), evaluationOf(b, seed, 0)];
    return (
      x.checkpointChecksum === y.checkpointChecksum &&
      x.harnessHash === y.harnessHash &&
      x.evalSeed === y.evalSeed &&
      x.perTask.length === y.perTask.length &&
      x.perTask.every(
        (task, i) => task.name === y.perTask[i]!.name && task.outcomes === y.perTask[i]!.outcomes,
      )
    );
  });
}

/**
 * Compares two recipes' seed scores (chapter 17.4: each seed is one unit). Unpaired: the
 * difference of the means with a Welch interval and a bootstrap over seeds (each side resampled
 * on its own). Paired, on the seeds in `shared` (indices into both): the mean difference with a
 * t interval, n - 1 df. Seeds needed for new independent seeds: normal approximation, exact t and
 * unequal variances.
 */
export function compareSeedScores(
  valuesA: number[],
  valuesB: number[],
  shared: Array<{ seed: number; a: number; b: number }>,
  { rng, reps = AGGREGATE_REPS }: { rng: Rng; reps?: number },
): SeedComparison {
  const welch = welchInterval(valuesA, valuesB);
  const meansA = bootstrapMeans(valuesA, { reps, rng: rng.fork('a') });
  const meansB = bootstrapMeans(valuesB, { reps, rng: rng.fork('b') });
  const differences = Float64Array.from(meansB, (value, i) => value - (meansA[i] as number)).sort();
  const [sdA, sdB] = [sampleStandardDeviation(valuesA), sampleStandardDeviation(valuesB)];
  const pooled = pooledStandardDeviation({ sd: sdA, n: valuesA.length }, { sd: sdB, n: valuesB.length });
  const delta = Math.abs(welch.difference);
  const seedsNeeded: SeedsNeeded | null =
    delta === 0 || pooled === 0
      ? null
      : {
          normal: requiredUnits({ sigma: pooled, delta, design: 'unpaired' }).units,
          exactT: requiredSeeds({ sdA: pooled, delta }),
          unequalVariances:
            sdA > 0 && sdB > 0 ? requiredSeeds({ sdA, sdB, delta, variances: 'unequal' }) : null,
          varianceRatio: sdA ** 2 / sdB ** 2,
        };
  const pairedInterval =
    shared.length >= 2
      ? pairedTInterval(
          shared.map((pair) => pair.a),
          shared.map((pair) => pair.b),
        )
      : null;
  return {
    design: pairedInterval === null ? 'unpaired' : 'paired',
    difference: welch.difference,
    welch: { low: welch.low, high: welch.high, df: welch.df },
    bootstrap: {
      low: percentileOfSorted(differences, 0.025),
      high: percentileOfSorted(differences, 0.975),
      reps,
    },
    paired:
      pairedInterval === null
        ? null
        : {
            seeds: shared.map((pair) => pair.seed),
            difference: pairedInterval.difference,
            low: pairedInterval.low,
            high: pairedInterval.high,
            df: pairedInterval.df,
          },
    seedsNeeded,
  };
}

/** Each seed's step-80 pass@1 (evaluation 'a', the tasks the study measures): the unit of a seed design. */
export function seedScores(results: StudyResults): number[] {
  return results.seeds.map((seed) => evaluationOf(results, seed, 80).passAt1);
}

/** The SD of one seed's score a design of new seeds can take from data (`tinyagent power --from`), and where it came from. */
export interface SeedSpread {
  sd: number;
  /** What the SD is of, for a message: `step-80 held-out pass@1 over 16 seeds of studies/default-16`. */
  source: string;
}

/**
 * The SD of one seed's step-80 pass@1 in a finished study (chapter 17.4: the training-noise SD
 * a seed design powers for); `name` is the folder as the user gave it. An InputError when the study is not finished or has fewer than 2 seeds.
 */
export function studySeedSpread(plan: Plan, name = plan.dir): SeedSpread {
  const values = seedScores(loadResults(plan));
  if (values.length < 2)
    throw new InputError(`${plan.dir}: 1 seed has no SD; a study of 2 or more seeds gives one`);
  return {
    sd: sampleStandardDeviation(values),
    source: `step-80 ${splitName(plan)} pass@1 over ${values.length} seeds of ${name}`,
  };
}

/**
 * The pooled SD of one seed's score over the two recipes of a `tinyagent study compare --out`
 * file (its `comparison.a` and `.b`: SD and seeds each), or undefined when `file` is not one.
 * An InputError names `path` when the file is one with a field out of its range.
 */
export function comparisonSeedSpread(file: unknown, path: string): SeedSpread | undefined {
  const comparison = (file as { comparison?: unknown } | null)?.comparison;
  if (typeof comparison !== 'object' || comparison === null) return undefined;
  const side = (name: 'a' | 'b') => {
    const value = (comparison as Record<string, unknown>)[name] as
      { sd?: unknown; seeds?: unknown } | undefined;
    const { sd, seeds } = value ?? {};
    if (
      typeof sd !== 'number' ||
      !(sd >= 0) ||
      !Number.isFinite(sd) ||
      !Number.isInteger(seeds) ||
      (seeds as number) < 2
    )
      throw new InputError(
        `${path}: comparison.${name} needs an sd (a number >= 0) and seeds (an integer >= 2), as tinyagent study compare --out writes them`,
      );
    return { sd, n: seeds as number, dir: (value as { dir?: unknown }).dir };
  };
  const [a, b] = [side('a'), side('b')];
  const name = (dir: unknown, fallback: string) => (typeof dir === 'string' ? dir : fallback);
  return {
    sd: pooledStandardDeviation(a, b),
    source: `the pooled SD of ${name(a.dir, 'A')} (${a.n} seeds, SD ${a.sd.toFixed(3)}) and ${name(b.dir, 'B')} (${b.n} seeds, SD ${b.sd.toFixed(3)}) in ${path}`,
  };
}

/**
 * Compares two studies' recipes by their step-80 pass@1 on the tasks both measure (evaluation 'a'), paired on the
 * seeds they share (`sharedSeeds`) and unpaired over all (`compareSeedScores`), with the
 * probability of improvement over seeds x tasks.
 * @throws InputError when a study has fewer than 2 seeds, the two evaluate different tasks, or
 *   the two plan the same jobs (one study, or a copy of it: nothing to compare).
 */
export function compareStudies(planA: Plan, planB: Plan): StudyComparison {
  if (planA.jobs.map((job) => job.id).join() === planB.jobs.map((job) => job.id).join())
    throw new InputError(
      `${planA.dir} and ${planB.dir} plan the same jobs (same recipe, seeds and evaluations): a study against itself differs by 0 by construction; compare two recipes`,
    );
  const [a, b] = [loadResults(planA), loadResults(planB)];
  if (a.seeds.length < 2 || b.seeds.length < 2)
    throw new InputError('each study needs at least 2 seeds to compare');
  if (a.tasks.map((task) => task.name).join() !== b.tasks.map((task) => task.name).join())
    throw new InputError(
      `${planA.dir} and ${planB.dir} evaluate different tasks (${splitName(planA)} and ${splitName(planB)}); compare studies of one split`,
    );
  const step80 = (results: StudyResults, seed: number) => evaluationOf(results, seed, 80).passAt1;
  const [valuesA, valuesB] = [seedScores(a), seedScores(b)];
  const shared = sharedSeeds(a, b);
  const rng = new Rng(planA.evalSeed).fork('compare');
  const comparison = compareSeedScores(
    valuesA,
    valuesB,
    shared.map((seed) => ({ seed, a: step80(a, seed), b: step80(b, seed) })),
    { rng },
  );
  // A seed is the unit: whole seeds of A and, apart, of B redrawn (docs/CLAIMS.md, section 1).
  const improvement = probabilityOfImprovementInterval(taskRates(b, 80), taskRates(a, 80), {
    reps: AGGREGATE_REPS,
    wholeRuns: true,
    rng: rng.fork('probability-of-improvement'),
  });
  return {
    split: splitName(planA),
    a: {
      dir: planA.dir,
      recipe: planA.recipe,
      seeds: valuesA.length,
      mean: mean(valuesA),
      sd: sampleStandardDeviation(valuesA),
    },
    b: {
      dir: planB.dir,
      recipe: planB.recipe,
      seeds: valuesB.length,
      mean: mean(valuesB),
      sd: sampleStandardDeviation(valuesB),
    },
    sharedSeeds: shared,
    ...comparison,
    probabilityOfImprovement: { ...improvement, reps: AGGREGATE_REPS },
  };
}

const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;

/**
 * The comparison as the command prints it. `coverage`: one line per interval method on what its
 * coverage simulation measured (publish/coverageNotes.ts `studyComparisonCoverage`: study/ reads
 * no results files).
 */
export function formatComparison(c: StudyComparison, coverage: readonly string[] = []): string {
  const f = (value: number) => value.toFixed(3);
  const unpaired = `B - A = ${signed(c.difference)} over all seeds (unpaired), Welch 95% [${f(c.welch.low)}, ${f(c.welch.high)}]${c.welch.df === null ? '' : ` (df ${c.welch.df.toFixed(1)})`}, bootstrap over seeds [${f(c.bootstrap.low)}, ${f(c.bootstrap.high)}] (${c.bootstrap.reps.toLocaleString('en-US')} replicates)`;
  const design =
    c.paired === null
      ? `design: unpaired (${c.sharedSeeds.length === 0 ? 'no seed' : 'only 1 seed'} shared: the same seed with the same step-0 checkpoint and evaluation episodes in both)`
      : `design: paired on the ${c.paired.seeds.length} seeds shared by both studies (seeds ${c.paired.seeds.join(', ')}: the same step-0 checkpoint and evaluation episodes)`;
  const lines = [
    `A ${c.a.dir} (${c.a.recipe}): step-80 ${c.split} pass@1 ${f(c.a.mean)} (SD ${f(c.a.sd)}, ${c.a.seeds} seeds)`,
    `B ${c.b.dir} (${c.b.recipe}): ${f(c.b.mean)} (SD ${f(c.b.sd)}, ${c.b.seeds} seeds)`,
    design,
  ];
  if (c.paired !== null)
    lines.push(
      `B - A = ${signed(c.paired.difference)} on the shared seeds (paired), t 95% [${f(c.paired.low)}, ${f(c.paired.high)}] (df ${c.paired.df})`,
    );
  const p = c.probabilityOfImprovement;
  lines.push(
    unpaired,
    `P(B > A) over seeds x tasks: ${f(p.estimate)} [${f(p.low)}, ${f(p.high)}] (whole seeds redrawn, 95%, ${p.reps.toLocaleString('en-US')} replicates)`,
  );
  const s = c.seedsNeeded;
  lines.push(
    s === null
      ? `seeds needed: none can be computed, ${c.difference === 0 ? 'B - A is exactly 0' : 'neither recipe varies across seeds'}: there is no observed difference to power a test for`
      : `new seeds per recipe to detect ${f(Math.abs(c.difference))} at alpha 0.05 with power 0.8: ${s.exactT} (t test, exact; the normal approximation: ${s.normal}), ${s.unequalVariances ?? 'undefined (one recipe does not vary)'} with unequal variances (Welch; variance ratio A/B ${s.varianceRatio.toFixed(1)})`,
  );
  lines.push(...coverage);
  return lines.join('\n');
}
