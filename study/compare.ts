import {
  AGGREGATE_REPS,
  BeyondCountError,
  bootstrapMeans,
  mean,
  pairedTInterval,
  percentileInterval,
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

const sideOf = ({ dir, recipe }: Plan, values: number[]) => ({
  dir,
  recipe,
  seeds: values.length,
  mean: mean(values),
  sd: sampleStandardDeviation(values),
});

/** Two studies compared, with P(B > A) over seeds x tasks at step 80. */
export type StudyComparison = ReturnType<typeof compareStudies>;

/**
 * The seeds two studies share: the same seed whose step-0 evaluation records the same checkpoint,
 * harness, eval seed and outcome of every episode, so that their difference at step 80 is the recipes'.
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

/** What `seedsNeeded` says where a near-zero difference needs more seeds than the power functions count (10^7 per recipe for the t test, 2^53 - 1 for the normal approximation). */
const BEYOND_SEEDS = 'more than 10^7';

function seedsOrBeyond(required: () => number): number | typeof BEYOND_SEEDS {
  try {
    const seeds = required();
    return seeds > 1e7 ? BEYOND_SEEDS : seeds;
  } catch (error) {
    if (error instanceof BeyondCountError) return BEYOND_SEEDS;
    throw error;
  }
}

/**
 * Compares two recipes' step-80 seed scores (17.4: each seed is one unit): mean(B) - mean(A) with a
 * Welch and a bootstrap interval; B - A on the `shared` seeds (null with fewer than 2); and the new
 * seeds per recipe to detect it at two-sided 0.05 with power 0.8 (normal approximation, exact t at
 * the pooled SD, Welch with each recipe's own SD; null when there is no observed difference).
 */
export function compareSeedScores(
  valuesA: number[],
  valuesB: number[],
  shared: Array<{ seed: number; a: number; b: number }>,
  { rng, reps = AGGREGATE_REPS }: { rng: Rng; reps?: number },
) {
  const welch = welchInterval(valuesA, valuesB);
  const meansA = bootstrapMeans(valuesA, { reps, rng: rng.fork('a') });
  const meansB = bootstrapMeans(valuesB, { reps, rng: rng.fork('b') });
  const differences = Float64Array.from(meansB, (value, i) => value - (meansA[i] as number));
  const [sdA, sdB] = [sampleStandardDeviation(valuesA), sampleStandardDeviation(valuesB)];
  const pooled = pooledStandardDeviation({ sd: sdA, n: valuesA.length }, { sd: sdB, n: valuesB.length });
  const delta = Math.abs(welch.difference);
  const seedsNeeded =
    delta === 0 || pooled === 0
      ? null
      : {
          normal: seedsOrBeyond(() => requiredUnits({ sigma: pooled, delta, design: 'unpaired' }).units),
          exactT: seedsOrBeyond(() => requiredSeeds({ sdA: pooled, delta })),
          unequalVariances:
            sdA > 0 && sdB > 0
              ? seedsOrBeyond(() => requiredSeeds({ sdA, sdB, delta, variances: 'unequal' }))
              : null,
          varianceRatio: sdA ** 2 / sdB ** 2,
        };
  const pairedInterval =
    shared.length >= 2
      ? pairedTInterval(
          shared.map((pair) => pair.a),
          shared.map((pair) => pair.b),
        )
      : null;
  const seeds = shared.map((pair) => pair.seed);
  return {
    design: pairedInterval === null ? ('unpaired' as const) : ('paired' as const),
    difference: welch.difference,
    welch: { low: welch.low, high: welch.high, df: welch.df },
    bootstrap: { ...percentileInterval(differences, 0.95), reps },
    paired:
      pairedInterval === null
        ? null
        : (({ difference, low, high, df }) => ({ seeds, difference, low, high, df }))(pairedInterval),
    seedsNeeded,
  };
}

/** The unit of a seed design. */
const step80 = (results: StudyResults, seed: number) => evaluationOf(results, seed, 80).passAt1;
const seedScores = (results: StudyResults) => results.seeds.map((seed) => step80(results, seed));

/** What `tinyagent power --from` takes from data. */
type SeedSpread = { sd: number; source: string };

/** The SD of one seed's step-80 pass@1 in a finished study of 2 or more seeds (`name`: the folder as given). */
export function studySeedSpread(plan: Plan, name = plan.dir): SeedSpread {
  const values = seedScores(loadResults(plan));
  if (values.length < 2)
    throw new InputError(`${plan.dir}: 1 seed has no SD; a study of 2 or more seeds gives one`);
  return {
    sd: sampleStandardDeviation(values),
    source: `step-80 ${splitName(plan)} pass@1 over ${values.length} seeds of ${name}`,
  };
}

/** The pooled SD of one seed's score over the two recipes of a `study compare --out` file, or undefined when `file` is not one. */
export function comparisonSeedSpread(file: unknown, path: string): SeedSpread | undefined {
  const comparison = (file as { comparison?: unknown } | null)?.comparison;
  if (typeof comparison !== 'object' || comparison === null) return undefined;
  const sides = comparison as Record<string, Record<string, unknown> | undefined>;
  const side = (name: 'a' | 'b') => {
    const { sd, seeds, dir } = sides[name] ?? {};
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
    return { sd, n: seeds as number, name: typeof dir === 'string' ? dir : name.toUpperCase() };
  };
  const [a, b] = [side('a'), side('b')];
  return {
    sd: pooledStandardDeviation(a, b),
    source: `the pooled SD of ${a.name} (${a.n} seeds, SD ${a.sd.toFixed(3)}) and ${b.name} (${b.n} seeds, SD ${b.sd.toFixed(3)}) in ${path}`,
  };
}

/** Compares two studies' recipes by their step-80 pass@1 (`compareSeedScores`, on `sharedSeeds`). */
export function compareStudies(planA: Plan, planB: Plan) {
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
    a: sideOf(planA, valuesA),
    b: sideOf(planB, valuesB),
    sharedSeeds: shared,
    ...comparison,
    probabilityOfImprovement: { ...improvement, reps: AGGREGATE_REPS },
  };
}

const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;

/** The comparison as the command prints it, `coverage` lines (what each interval's coverage simulation measured) last. */
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
