/**
 * 17.4 Comparing two training runs.
 *
 * Question: when two runs of one recipe differ, is it the training or the evaluation? Four
 *   seeds of the recipe, each seed's step-30 and step-80 checkpoints evaluated twice,
 *   independently: the SD of one evaluation against the binomial SD, the seed means, and the
 *   training-noise SD by the method of moments. Then a paired comparison with common random
 *   numbers (step 60 against step 80 of one run, on the same episodes), and the sample sizes a
 *   comparison needs (power).
 * Command: npm run exp:17.4 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: about 40 s with trained checkpoints; training the seeds first takes what `npm run
 *   train` takes (README, results/train.json) for each (they are runs/seed-1 ... seed-3, shared
 *   with `npm run train -- --seeds 0,1,2,3`; seed 0 is the run itself when it is the default
 *   recipe, see `seedRun`).
 * Output: results/17.4.json, results/17.4.md.
 */
import { makeTasks } from '../gym/index.ts';
import {
  mean,
  pairedBootstrapDiff,
  pairedStandardError,
  pearsonCorrelation,
  requiredUnits,
  sampleStandardDeviation,
  sampleVariance,
  unpairedStandardError,
} from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report, type Numbers } from '../publish/sections/17.4.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, seedRun, type RunOptions } from './runs.ts';

const SEEDS = [0, 1, 2, 3];

/** Episodes in one evaluation: every held-out task, `episodes` times. */
const HELD_OUT_TASKS = makeTasks('heldout').length;

const rates = (perTask: ReadonlyArray<{ successes: number; episodes: number }>) =>
  perTask.map((count) => count.successes / count.episodes);

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const seeds = smoke ? SEEDS.slice(0, 2) : SEEDS;

  // Seed noise against evaluation noise: every checkpoint evaluated twice, with independent episodes.
  const repeats: Numbers['repeats'] = [];
  for (const trainingSeed of seeds) {
    const at = await ensureRun(seedRun(run, trainingSeed, smoke), {
      seed: trainingSeed,
      smoke,
      steps: [30, 80],
    });
    for (const step of [30, 80]) {
      // Each training seed has evaluation seeds of its own: two seeds' means share no random numbers,
      // as the training-noise estimate below assumes.
      const [a, b] = [
        await evaluateOnCores({ checkpoint: at(step), episodes, seed: `${seed}/repeat/${trainingSeed}/a` }),
        await evaluateOnCores({ checkpoint: at(step), episodes, seed: `${seed}/repeat/${trainingSeed}/b` }),
      ];
      repeats.push({
        trainingSeed,
        step,
        first: a.passAt1,
        second: b.passAt1,
        difference: b.passAt1 - a.passAt1,
        mean: (a.passAt1 + b.passAt1) / 2,
      });
    }
  }
  const noise = [30, 80].map((step) => {
    const own = repeats.filter((row) => row.step === step);
    // Var(one evaluation) = E[(a - b)^2] / 2; the seed means average two evaluations, so their variance holds evalVar / 2 of it.
    const evalVariance = mean(own.map((row) => row.difference ** 2)) / 2;
    const seedMeans = own.map((row) => row.mean);
    const overall = mean(seedMeans);
    const trainingVariance = Math.max(0, sampleVariance(seedMeans) - evalVariance / 2);
    return {
      step,
      evalSD: Math.sqrt(evalVariance),
      binomialSD: Math.sqrt((overall * (1 - overall)) / (episodes * HELD_OUT_TASKS)),
      seedMeans,
      seedMeanSD: sampleStandardDeviation(seedMeans),
      trainingSD: Math.sqrt(trainingVariance),
      maxRepeatDifference: Math.max(...own.map((row) => Math.abs(row.difference))),
    };
  });

  // Common random numbers: step 60 and step 80 of one run on the same episodes (one seed for both).
  const at = await ensureRun(run, { smoke, steps: [60, 80] });
  const [early, late] = [
    await evaluateOnCores({ checkpoint: at(60), episodes, seed: `${seed}/paired` }),
    await evaluateOnCores({ checkpoint: at(80), episodes, seed: `${seed}/paired` }),
  ];
  const [a, b] = [rates(early.perTask), rates(late.perTask)];
  const interval = pairedBootstrapDiff(a, b, { rng: new Rng(seed).fork('17.4/paired') });
  const paired = {
    step60: early.passAt1,
    step80: late.passAt1,
    difference: late.passAt1 - early.passAt1,
    low: interval.low,
    high: interval.high,
    pairedSE: pairedStandardError(a, b),
    unpairedSE: unpairedStandardError(a, b),
    correlation: pearsonCorrelation(a, b),
  };

  // Power from the measured spreads: two-sided alpha 0.05, power 0.8.
  const differenceSD = sampleStandardDeviation(a.map((value, j) => (b[j] as number) - value));
  const taskSD = sampleStandardDeviation(b);
  // Seeds: the spread of seed means at step 80 (our run's end) and at step 30 (where the book measured it).
  const seedSDAt = (step: number) => noise.find((row) => row.step === step)!.seedMeanSD;
  const [seedSDStep80, seedSDStep30] = [seedSDAt(80), seedSDAt(30)];
  const units = (sigma: number, delta: number, design: 'paired' | 'unpaired' | 'seeds') =>
    sigma > 0 ? requiredUnits({ sigma, delta, design }).units : null;
  const power = [0.02, 0.05].map((delta) => ({
    delta,
    pairedTasks: units(differenceSD, delta, 'paired'),
    unpairedTasksPerGroup: units(taskSD, delta, 'unpaired'),
    seedsPerGroupStep80: units(seedSDStep80, delta, 'seeds'),
    seedsPerGroupStep30: units(seedSDStep30, delta, 'seeds'),
  }));

  // What pairing buys: the unpaired SE over the paired one, and the unpaired design's tasks per
  // group over the paired design's tasks at each difference (the book: 0.132 / 0.023, 533 / 17).
  const pairing = {
    seRatio: paired.unpairedSE / paired.pairedSE,
    tasksRatio: power.map(({ delta, pairedTasks, unpairedTasksPerGroup }) => ({
      delta,
      ratio:
        pairedTasks === null || unpairedTasksPerGroup === null ? null : unpairedTasksPerGroup / pairedTasks,
    })),
  };
  const numbers = {
    repeats,
    noise,
    paired,
    power,
    pairing,
    spreads: { differenceSD, taskSD, seedSDStep80, seedSDStep30 },
  };
  writeResults(outDir, {
    section: '17.4',
    title: 'Comparing two training runs',
    seed,
    smoke,
    config: { run, seeds, episodes },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers, { run, seeds, episodesPerEvaluation: episodes * HELD_OUT_TASKS }),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.4', () => main(parseRunOptions(process.argv.slice(2))));
