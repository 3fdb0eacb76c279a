import {
  bootstrapMeans,
  mean,
  percentileOfSorted,
  probabilityOfImprovement,
  requiredUnits,
  sampleStandardDeviation,
  welchInterval,
} from '../eval/index.ts';
import { InputError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import type { Plan } from './plan.ts';
import { evaluationOf, loadResults, taskRates } from './results.ts';

export interface StudyComparison {
  a: { dir: string; recipe: string; seeds: number; mean: number; sd: number };
  b: { dir: string; recipe: string; seeds: number; mean: number; sd: number };
  /** mean(B) - mean(A) of step-80 held-out pass@1 over seeds. */
  difference: number;
  welch: { low: number; high: number; df: number | null };
  bootstrap: { low: number; high: number; reps: number };
  /** P(B > A) over seeds x tasks at step 80 (rliable). */
  probabilityOfImprovement: number;
  /** Seeds per recipe to detect the observed difference at two-sided 0.05 with power 0.8 (unpaired); null when the difference is 0. */
  seedsNeeded: number | null;
}

/**
 * Compares two recipes the chapter's way (17.4): each seed is one unit, its step-80 held-out
 * pass@1 (evaluation 'a'). The difference of the means with a Welch interval and a bootstrap
 * over seeds (each study's seeds resampled on their own), the probability of improvement over
 * seeds x tasks, and the seeds per recipe needed to detect the observed difference
 * (`requiredUnits`, unpaired, sigma the pooled SD of one seed).
 */
export function compareStudies(planA: Plan, planB: Plan): StudyComparison {
  const [a, b] = [loadResults(planA), loadResults(planB)];
  if (a.seeds.length < 2 || b.seeds.length < 2)
    throw new InputError('each study needs at least 2 seeds to compare');
  if (a.tasks.map((task) => task.name).join() !== b.tasks.map((task) => task.name).join())
    throw new InputError(`${planA.dir} and ${planB.dir} evaluate different held-out tasks`);
  const step80 = (results: typeof a) => results.seeds.map((seed) => evaluationOf(results, seed, 80).passAt1);
  const [valuesA, valuesB] = [step80(a), step80(b)];
  const welch = welchInterval(valuesA, valuesB);
  const rng = new Rng(planA.evalSeed).fork('compare');
  const reps = 4000;
  const meansA = bootstrapMeans(valuesA, { reps, rng: rng.fork('a') });
  const meansB = bootstrapMeans(valuesB, { reps, rng: rng.fork('b') });
  const differences = Float64Array.from(meansB, (value, i) => value - (meansA[i] as number)).sort();
  const [sdA, sdB] = [sampleStandardDeviation(valuesA), sampleStandardDeviation(valuesB)];
  const pooled = Math.sqrt(
    ((valuesA.length - 1) * sdA ** 2 + (valuesB.length - 1) * sdB ** 2) /
      (valuesA.length + valuesB.length - 2),
  );
  const seedsNeeded =
    welch.difference === 0 || pooled === 0
      ? null
      : requiredUnits({ sigma: pooled, delta: Math.abs(welch.difference), design: 'unpaired' }).units;
  return {
    a: { dir: planA.dir, recipe: planA.recipe, seeds: valuesA.length, mean: mean(valuesA), sd: sdA },
    b: { dir: planB.dir, recipe: planB.recipe, seeds: valuesB.length, mean: mean(valuesB), sd: sdB },
    difference: welch.difference,
    welch: { low: welch.low, high: welch.high, df: welch.df },
    bootstrap: {
      low: percentileOfSorted(differences, 0.025),
      high: percentileOfSorted(differences, 0.975),
      reps,
    },
    probabilityOfImprovement: probabilityOfImprovement(taskRates(b, 80), taskRates(a, 80)),
    seedsNeeded,
  };
}

export function formatComparison(c: StudyComparison): string {
  const f = (value: number) => value.toFixed(3);
  return [
    `A ${c.a.dir} (${c.a.recipe}): step-80 held-out pass@1 ${f(c.a.mean)} (SD ${f(c.a.sd)}, ${c.a.seeds} seeds)`,
    `B ${c.b.dir} (${c.b.recipe}): ${f(c.b.mean)} (SD ${f(c.b.sd)}, ${c.b.seeds} seeds)`,
    `B - A = ${c.difference >= 0 ? '+' : ''}${f(c.difference)}, Welch 95% [${f(c.welch.low)}, ${f(c.welch.high)}]${c.welch.df === null ? '' : ` (df ${c.welch.df.toFixed(1)})`}, bootstrap over seeds [${f(c.bootstrap.low)}, ${f(c.bootstrap.high)}]`,
    `P(B > A) over seeds x tasks: ${f(c.probabilityOfImprovement)}`,
    c.seedsNeeded === null
      ? 'seeds needed: undefined (no difference observed)'
      : `seeds per recipe to detect ${f(Math.abs(c.difference))} at alpha 0.05 with power 0.8 (unpaired): ${c.seedsNeeded}`,
  ].join('\n');
}
