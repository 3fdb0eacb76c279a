import { describe, expect, it } from 'vitest';
import * as exported from '../eval/index.ts';
import { percentileInterval } from '../eval/bootstrap.ts';
import { changePoint } from '../eval/changePoint.ts';
import { taskRates } from '../eval/clustered.ts';
import { chiSquareCdf, chiSquareQuantile } from '../eval/noiseStandardDeviation.ts';
import { differenceStandardError } from '../eval/designReview.ts';
import { noncentralTCdf } from '../eval/power.ts';
import { twoSidedZ } from '../eval/normal.ts';
import type { ProportionMethod } from '../eval/proportionInterval.ts';
import { sampleGamma } from '../eval/random.ts';
import { Rng } from '../lib/rng.ts';

// Every exported statistic, fed inputs that cannot describe any data: each must throw a
// RangeError whose message names the argument, never return a number.
const rng = new Rng(1);
const BIG = 2 ** 53; // the first integer that `i++` cannot step past
const HUGE = 1e21;

type Case = [label: string, call: () => unknown, names: RegExp];

/** The library's statistics (eval/index.ts) and the ones eval/ keeps to itself. */
const stats = {
  ...exported,
  percentileInterval,
  changePoint,
  taskRates,
  chiSquareCdf,
  chiSquareQuantile,
  differenceStandardError,
  noncentralTCdf,
  twoSidedZ,
  sampleGamma,
};

const CASES: Case[] = [
  // pass@k family
  ['passAtK c > n', () => stats.passAtK(10, 11, 1), /\bc\b/],
  ['passAtK c < 0', () => stats.passAtK(10, -3, 1), /\bc\b/],
  ['passAtK fractional c', () => stats.passAtK(10, 2.5, 1), /\bc\b/],
  ['passAtK NaN n', () => stats.passAtK(NaN, 0, 1), /\bn\b/],
  ['passAtK n above 2^53', () => stats.passAtK(HUGE, 3, 2), /\bn\b/],
  ['passAtK n = 2^53', () => stats.passAtK(BIG, 3, 2), /\bn\b/],
  ['passAtK k = 0', () => stats.passAtK(10, 3, 0), /\bk\b/],
  ['passAtK k > n', () => stats.passAtK(10, 3, 11), /\bk\b/],
  ['plugInPassAtK c > n', () => stats.plugInPassAtK(10, 11, 2), /\bc\b/],
  ['plugInPassAtK k infinite', () => stats.plugInPassAtK(10, 1, Infinity), /\bk\b/],
  ['plugInPassAtK k above 2^53', () => stats.plugInPassAtK(10, 1, HUGE), /\bk\b/],
  ['allCorrectAtK c > n', () => stats.allCorrectAtK(10, 11, 2), /\bc\b/],
  ['allCorrectAtK n above 2^53', () => stats.allCorrectAtK(HUGE, 5, 2), /\bn\b/],
  ['exactPassAtK c < 0', () => stats.exactPassAtK(10, -1, 2), /\bc\b/],
  ['exactPassAtK beyond exact arithmetic', () => stats.exactPassAtK(1e15, 1, 5e14), /\bk\b/],
  ['prefixPassAtK outcome 2', () => stats.prefixPassAtK([1, 2, 0], 2), /outcomes\[1\]/],
  ['prefixPassAtK outcome NaN', () => stats.prefixPassAtK([NaN, 1], 1), /outcomes\[0\]/],
  ['prefixPassAtK k = 0', () => stats.prefixPassAtK([1, 0], 0), /\bk\b/],
  ['prefixAllCorrectAtK outcome -1', () => stats.prefixAllCorrectAtK([1, -1], 2), /outcomes\[1\]/],
  ['prefixAllCorrectAtK k > samples', () => stats.prefixAllCorrectAtK([1, 1], 3), /\bk\b/],
  ['meanAccuracy c > n', () => stats.meanAccuracy([{ n: 10, c: 11 }]), /tasks\[0\]\.c/],
  [
    'meanAccuracy c < 0',
    () =>
      stats.meanAccuracy([
        { n: 10, c: 1 },
        { n: 10, c: -3 },
      ]),
    /tasks\[1\]\.c/,
  ],
  ['meanAccuracy n = 0', () => stats.meanAccuracy([{ n: 0, c: 0 }]), /tasks\[0\]\.n/],
  ['meanAccuracy fractional c', () => stats.meanAccuracy([{ n: 10, c: 0.5 }]), /tasks\[0\]\.c/],
  ['meanAccuracy no tasks', () => stats.meanAccuracy([]), /tasks/],
  ['firstSampleAccuracy outcome 3', () => stats.firstSampleAccuracy([[3]]), /tasks\[0\]/],
  ['firstSampleAccuracy empty task', () => stats.firstSampleAccuracy([[1], []]), /tasks\[1\]/],
  // one-proportion intervals
  ...(
    [
      'waldInterval',
      'wilsonInterval',
      'clopperPearsonInterval',
      'jeffreysInterval',
      'agrestiCoullInterval',
    ] as const
  ).flatMap((name): Case[] => [
    [`${name} c > n`, () => stats[name](11, 10), /\bc\b/],
    [`${name} c < 0`, () => stats[name](-1, 10), /\bc\b/],
    [`${name} n = 0`, () => stats[name](0, 0), /\bn\b/],
    [`${name} n above 2^53`, () => stats[name](1, HUGE), /\bn\b/],
    [`${name} level 1`, () => stats[name](1, 10, { level: 1 }), /level/],
    [`${name} level NaN`, () => stats[name](1, 10, { level: NaN }), /level/],
  ]),
  [
    'proportionInterval unknown method',
    () => stats.proportionInterval(1, 10, { method: 'exact' as ProportionMethod }),
    /method/,
  ],
  ['proportionInterval c > n', () => stats.proportionInterval(11, 10), /\bc\b/],
  // bootstrap
  ['bootstrapCI NaN value', () => stats.bootstrapCI([NaN, 1], { rng }), /values\[0\]/],
  ['bootstrapCI Infinity value', () => stats.bootstrapCI([1, Infinity], { rng }), /values\[1\]/],
  ['bootstrapCI one unit', () => stats.bootstrapCI([0.5], { rng }), /values.*at least 2/],
  ['bootstrapCI empty', () => stats.bootstrapCI([], { rng }), /values/],
  ['bootstrapCI reps 0', () => stats.bootstrapCI([0, 1], { rng, reps: 0 }), /reps/],
  ['bootstrapCI reps fractional', () => stats.bootstrapCI([0, 1], { rng, reps: 10.5 }), /reps/],
  ['bootstrapCI level 0', () => stats.bootstrapCI([0, 1], { rng, level: 0 }), /level/],
  [
    'bootstrapCI unknown method',
    () => stats.bootstrapCI([0, 1], { rng, method: 'basic' as 'bca' }),
    /method/,
  ],
  ['bootstrapCI no rng', () => stats.bootstrapCI([0, 1], { rng: undefined as unknown as Rng }), /rng/],
  ['bootstrapMeans NaN value', () => stats.bootstrapMeans([1, NaN], { rng }), /values\[1\]/],
  ['bootstrapMeans reps -1', () => stats.bootstrapMeans([1, 0], { rng, reps: -1 }), /reps/],
  [
    'taskBootstrapCI one task',
    () => stats.taskBootstrapCI({ successes: [3], trials: 10 }, { rng }),
    /at least 2/,
  ],
  [
    'taskBootstrapCI c > n',
    () => stats.taskBootstrapCI({ successes: [3, 11], trials: 10 }, { rng }),
    /successes\[1\]/,
  ],
  ['perTaskBootstrapCI one task', () => stats.perTaskBootstrapCI([0.5], { rng }), /values.*at least 2/],
  [
    'episodeBootstrapCI trials 0',
    () => stats.episodeBootstrapCI({ successes: [0], trials: 0 }, { rng }),
    /trials/,
  ],
  [
    'episodeBootstrapCI one episode',
    () => stats.episodeBootstrapCI({ successes: [1], trials: 1 }, { rng }),
    /at least 2/,
  ],
  [
    'episodeBootstrapCI length mismatch',
    () => stats.episodeBootstrapCI({ successes: [1, 2], trials: [4] }, { rng }),
    /trials/,
  ],
  [
    'episodeBootstrapCI reps 0',
    () => stats.episodeBootstrapCI({ successes: [1, 2], trials: 4 }, { rng, reps: 0 }),
    /reps/,
  ],
  ['pairedBootstrapDiff NaN', () => stats.pairedBootstrapDiff([0, NaN], [1, 1], { rng }), /a\[1\]/],
  ['pairedBootstrapDiff one pair', () => stats.pairedBootstrapDiff([0], [1], { rng }), /at least 2/],
  ['pairedBootstrapDiff lengths', () => stats.pairedBootstrapDiff([0, 1], [1], { rng }), /length/],
  ['taskRates c > n', () => stats.taskRates({ successes: [5], trials: 4 }), /successes\[0\]/],
  ['taskRates n above 2^53', () => stats.taskRates({ successes: [5], trials: HUGE }), /trials/],
  ['taskRates no tasks', () => stats.taskRates({ successes: [], trials: 4 }), /successes/],
  // clustering, comparison, power, selection
  [
    'clusteredStandardError one task',
    () => stats.clusteredStandardError({ successes: [3], trials: 10 }),
    /at least 2/,
  ],
  [
    'clusteredStandardError c < 0',
    () => stats.clusteredStandardError({ successes: [3, -1], trials: 10 }),
    /successes\[1\]/,
  ],
  [
    'episodeStandardError one episode',
    () => stats.episodeStandardError({ successes: [1], trials: 1 }),
    /at least 2/,
  ],
  [
    'episodeStandardError fractional trials',
    () => stats.episodeStandardError({ successes: [1], trials: 2.5 }),
    /trials/,
  ],
  [
    'intraclassCorrelation one task',
    () => stats.intraclassCorrelation({ successes: [3], trials: 10 }),
    /at least 2/,
  ],
  [
    'intraclassCorrelation all outcomes alike',
    () => stats.intraclassCorrelation({ successes: [10, 10], trials: 10 }),
    /same outcome/,
  ],
  [
    'taskVarianceIntraclassCorrelation one task',
    () => stats.taskVarianceIntraclassCorrelation({ successes: [3], trials: 10 }),
    /at least 2/,
  ],
  [
    'taskVarianceIntraclassCorrelation one episode',
    () => stats.taskVarianceIntraclassCorrelation({ successes: [1, 0], trials: [1, 4] }),
    /2\+ episodes/,
  ],
  [
    'taskVarianceIntraclassCorrelation all outcomes alike',
    () => stats.taskVarianceIntraclassCorrelation({ successes: [10, 10], trials: 10 }),
    /same outcome/,
  ],
  ['designEffect rho -1 at n = 10', () => stats.designEffect(10, -1), /rho/],
  ['designEffect rho 2', () => stats.designEffect(10, 2), /rho/],
  ['designEffect rho NaN', () => stats.designEffect(10, NaN), /rho/],
  ['designEffect n 0', () => stats.designEffect(0, 0.1), /episodesPerTask/],
  ['designEffect n Infinity', () => stats.designEffect(Infinity, 0.1), /episodesPerTask/],
  ['meanDifference NaN', () => stats.meanDifference([NaN], [1]), /a\[0\]/],
  ['meanDifference lengths', () => stats.meanDifference([1, 2], [1]), /length/],
  ['pairedStandardError one pair', () => stats.pairedStandardError([0.5], [0.6]), /at least 2/],
  ['pairedStandardError Infinity', () => stats.pairedStandardError([0.5, 1], [0.6, Infinity]), /b\[1\]/],
  [
    'unpairedStandardError one unit',
    () => stats.unpairedStandardError([0.5, 0.6], [0.6]),
    /\bb\b.*at least 2/,
  ],
  [
    'pearsonCorrelation zero variance',
    () => stats.pearsonCorrelation([1, 1, 1], [0, 1, 0]),
    /\ba\b.*zero variance/,
  ],
  ['pearsonCorrelation one pair', () => stats.pearsonCorrelation([1], [0]), /at least 2/],
  ['requiredUnits sigma negative', () => stats.requiredUnits({ sigma: -1, delta: 0.1 }), /sigma/],
  ['requiredUnits sigma NaN', () => stats.requiredUnits({ sigma: NaN, delta: 0.1 }), /sigma/],
  ['requiredUnits delta 0', () => stats.requiredUnits({ sigma: 1, delta: 0 }), /delta/],
  ['requiredUnits delta Infinity', () => stats.requiredUnits({ sigma: 1, delta: Infinity }), /delta/],
  ['requiredUnits alpha 0', () => stats.requiredUnits({ sigma: 1, delta: 0.1, alpha: 0 }), /alpha/],
  ['requiredUnits power 0.01', () => stats.requiredUnits({ sigma: 1, delta: 0.1, power: 0.01 }), /power/],
  ['requiredUnits power 0.025', () => stats.requiredUnits({ sigma: 1, delta: 0.1, power: 0.025 }), /power/],
  ['requiredUnits power 0.3', () => stats.requiredUnits({ sigma: 1, delta: 0.1, power: 0.3 }), /power/],
  ['requiredUnits power 1', () => stats.requiredUnits({ sigma: 1, delta: 0.1, power: 1 }), /power/],
  ['requiredUnits N beyond 2^53', () => stats.requiredUnits({ sigma: 1e300, delta: 1e-300 }), /delta/],
  [
    'requiredUnits unknown design',
    () => stats.requiredUnits({ sigma: 1, delta: 0.1, design: 'crossed' as 'paired' }),
    /design/,
  ],
  ['expectedMaxNormal m 0', () => stats.expectedMaxNormal(0), /\bm\b/],
  ['expectedMaxNormal m 2.5', () => stats.expectedMaxNormal(2.5), /\bm\b/],
  [
    'winnersCurseSimulation 0 episodes',
    () => stats.winnersCurseSimulation({ checkpoints: 8, episodes: 0, passRate: 0.5, rng }),
    /episodes/,
  ],
  [
    'winnersCurseSimulation passRate 1.5',
    () => stats.winnersCurseSimulation({ checkpoints: 8, episodes: 10, passRate: 1.5, rng }),
    /passRate/,
  ],
  [
    'winnersCurseSimulation passRate NaN',
    () => stats.winnersCurseSimulation({ checkpoints: 8, episodes: 10, passRate: NaN, rng }),
    /passRate/,
  ],
  [
    'winnersCurseSimulation checkpoints 0',
    () => stats.winnersCurseSimulation({ checkpoints: 0, episodes: 10, passRate: 0.5, rng }),
    /checkpoints/,
  ],
  [
    'winnersCurseSimulation trials 0',
    () => stats.winnersCurseSimulation({ checkpoints: 2, episodes: 10, passRate: 0.5, trials: 0, rng }),
    /trials/,
  ],
  // distributions and exact coverage
  ['binomialPmf n -1', () => stats.binomialPmf(-1, 0.5), /\bn\b/],
  ['binomialPmf p 2', () => stats.binomialPmf(10, 2), /\bp\b/],
  ['betaBinomialPmf a 0', () => stats.betaBinomialPmf(10, 0, 1), /\ba\b/],
  ['betaBinomialPmf n 2.5', () => stats.betaBinomialPmf(2.5, 1, 1), /\bn\b/],
  ['convolvePmf NaN mass', () => stats.convolvePmf([NaN], [1]), /first\[0\]/],
  ['convolvePmf empty', () => stats.convolvePmf([1], []), /second/],
  ['intervalCoverage n 0', () => stats.intervalCoverage(0, 0.5, stats.wilsonInterval), /\bn\b/],
  ['intervalCoverage p NaN', () => stats.intervalCoverage(10, NaN, stats.wilsonInterval), /\bp\b/],
  ['percentileCoverage negative mass', () => stats.percentileCoverage([0.5, -0.5], 1, 0.5), /pmf\[1\]/],
  ['percentileCoverage no mass', () => stats.percentileCoverage([0, 0], 1, 0.5), /pmf/],
  ['percentileCoverage scale 0', () => stats.percentileCoverage([1], 0, 0.5), /scale/],
  ['percentileCoverage target NaN', () => stats.percentileCoverage([1], 1, NaN), /target/],
  ['percentileCoverage reps 1', () => stats.percentileCoverage([1], 1, 0.5, { reps: 1 }), /reps/],
  ['percentileCoverage level 1', () => stats.percentileCoverage([1], 1, 0.5, { level: 1 }), /level/],
  ['taskBootstrapDistribution one task', () => stats.taskBootstrapDistribution([3], 10), /at least 2/],
  ['taskBootstrapDistribution c > n', () => stats.taskBootstrapDistribution([3, 11], 10), /successes\[1\]/],
  ['taskBootstrapDistribution trials 0', () => stats.taskBootstrapDistribution([0, 0], 0), /trials/],
  // descriptive helpers and random variates
  ['mean NaN', () => stats.mean([1, NaN]), /values\[1\]/],
  ['mean empty', () => stats.mean([]), /values/],
  ['sampleVariance one value', () => stats.sampleVariance([1]), /at least 2/],
  ['sampleStandardDeviation Infinity', () => stats.sampleStandardDeviation([1, -Infinity]), /values\[1\]/],
  ['normalQuantile p 1.5', () => stats.normalQuantile(1.5), /\bp\b/],
  ['normalQuantile p NaN', () => stats.normalQuantile(NaN), /\bp\b/],
  ['normalCdfStandard NaN', () => stats.normalCdfStandard(NaN), /\bx\b/],
  ['twoSidedZ level 1', () => stats.twoSidedZ(1), /level/],
  ['sampleBinomial n -1', () => stats.sampleBinomial(-1, 0.5, rng), /\bn\b/],
  ['sampleBinomial n above 2^53', () => stats.sampleBinomial(HUGE, 0.5, rng), /\bn\b/],
  ['sampleBinomial p NaN', () => stats.sampleBinomial(10, NaN, rng), /\bp\b/],
  ['sampleBeta a 0', () => stats.sampleBeta(0, 1, rng), /\ba\b/],
  ['sampleBeta b Infinity', () => stats.sampleBeta(1, Infinity, rng), /\bb\b/],
  ['sampleGamma shape NaN', () => stats.sampleGamma(NaN, rng), /shape/],
  ['sampleStandardNormal no rng', () => stats.sampleStandardNormal(undefined as unknown as Rng), /rng/],
  ['percentileOfSorted no values', () => stats.percentileOfSorted([], 0.5), /sorted/],
  ['percentileOfSorted q 1.5', () => stats.percentileOfSorted([1, 2], 1.5), /\bq\b/],
  [
    'percentileInterval no replicates',
    () => stats.percentileInterval(new Float64Array(0), 0.95),
    /replicates/,
  ],
  ['percentileInterval level 1', () => stats.percentileInterval(Float64Array.of(1, 2), 1), /level/],
  [
    'rliableAggregates gamma NaN',
    () => stats.rliableAggregates([[1]], { metrics: ['iqm'], gamma: NaN, rng }),
    /gamma/,
  ],
  [
    'rliableAggregates taus descending',
    () => stats.rliableAggregates([[1]], { metrics: ['iqm'], taus: [0.5, 0.2], rng }),
    /taus/,
  ],
  [
    'rliableAggregates ragged',
    () => stats.rliableAggregates([[1, 2], [3]], { metrics: ['iqm'], rng }),
    /scores/,
  ],
  [
    'rliableAggregates reps 0',
    () => stats.rliableAggregates([[1]], { metrics: ['iqm'], reps: 0, rng }),
    /reps/,
  ],
  [
    'rliableAggregates level 1',
    () => stats.rliableAggregates([[1]], { metrics: ['iqm'], level: 1, rng }),
    /level/,
  ],
  ['probabilityOfImprovement ragged', () => stats.probabilityOfImprovement([[1, 0]], [[0]]), /x and y/],
  ['welchInterval one value', () => stats.welchInterval([1], [1, 2]), /group/],
  ['welchInterval level 0', () => stats.welchInterval([1, 2], [1, 2], { level: 0 }), /level/],
  ['binomialTestGreater k > n', () => stats.binomialTestGreater(5, 4, 0.5), /\bk\b/],
  ['binomialTestGreater n -1', () => stats.binomialTestGreater(0, -1, 0.5), /\bn\b/],
  ['binomialTestGreater p 2', () => stats.binomialTestGreater(1, 4, 2), /\bp\b/],
  // the chapter's exercises
  [
    'binomialEstimatorMoments n 0',
    () => stats.binomialEstimatorMoments({ n: 0, p: 0.5, estimate: (c) => c }),
    /\bn\b/,
  ],
  [
    'binomialEstimatorMoments p 2',
    () => stats.binomialEstimatorMoments({ n: 4, p: 2, estimate: (c) => c }),
    /\bp\b/,
  ],
  [
    'betaBinomialMeanPosterior c > n',
    () => stats.betaBinomialMeanPosterior({ successes: [5], trials: [4], rng }),
    /successes\[0\]/,
  ],
  [
    'betaBinomialMeanPosterior draws 1',
    () => stats.betaBinomialMeanPosterior({ successes: [1], trials: [4], draws: 1, rng }),
    /draws/,
  ],
  ['changePoint one value', () => stats.changePoint([1]), /values/],
  [
    'changePointBootstrap reps 0',
    () => stats.changePointBootstrap({ successes: [1, 2], trials: [4, 4], reps: 0, rng }),
    /reps/,
  ],
  ['fallOnset NaN', () => stats.fallOnset([1, NaN]), /values\[1\]/],
  ['shannonEntropy negative count', () => stats.shannonEntropy({ a: -1 }), /counts\[0\]/],
  [
    'differenceStandardError correlation 2',
    () =>
      stats.differenceStandardError({
        a: 0.4,
        b: 0.5,
        tasks: 10,
        samples: 1,
        seeds: 1,
        correlation: 2,
        icc: 0.5,
        seedSD: 0,
      }),
    /correlation/,
  ],
  [
    'designReview selectedFrom 0',
    () =>
      stats.designReview({
        a: 0.4,
        b: 0.5,
        tasks: 10,
        samples: 1,
        seeds: 1,
        selectedFrom: 0,
        correlation: null,
        icc: 0.5,
        seedSD: 0,
      }),
    /selectedFrom/,
  ],
  // seeds, claims and comparisons (exp:seeds, study compare, exp:coverage)
  [
    'stratifiedBootstrap score NaN',
    () =>
      stats.stratifiedBootstrap(
        [
          [0.1, NaN],
          [0.2, 0.3],
        ],
        (x) => [stats.mean(x)],
        { reps: 10, rng },
      ),
    /scores/,
  ],
  [
    'probabilityOfImprovementInterval tasks differ',
    () => stats.probabilityOfImprovementInterval([[0.1, 0.2]], [[0.1]], { reps: 10, rng }),
    /\bx and y\b/,
  ],
  ['pairedTInterval one unit', () => stats.pairedTInterval([0.5], [0.6]), /\ba\b/],
  [
    'countDropDetection early above 1',
    () => stats.countDropDetection({ n: 8, early: 2, late: 0 }),
    /\bearly\b/,
  ],
  [
    'pairedDropTestPower no episodes',
    () => stats.pairedDropTestPower({ n: 0, early: 0.5, late: 0 }, 0.05),
    /\bn\b/,
  ],
  ['expandedPercentileLevel one unit', () => stats.expandedPercentileLevel(1, 0.95), /\bn\b/],
  ['exactOverUnits no units', () => stats.exactOverUnits(1, 0), /\bunits\b/],
  ['exactOverUnits value above 1', () => stats.exactOverUnits(1.5, 4), /\bvalue\b/],
  [
    'withoutCollapse value above 1',
    () => stats.withoutCollapse({ low: 1, high: 1 }, 1.5, { units: 4, unit: 'tasks', level: 0.95 }),
    /\bvalue\b/,
  ],
  [
    'pooledStandardDeviation one unit',
    () => stats.pooledStandardDeviation({ sd: 0.1, n: 1 }, { sd: 0.1, n: 8 }),
    /\ba\.n\b/,
  ],
  ['meanTInterval one value', () => stats.meanTInterval([0.5]), /\bvalues\b/],
  ['meanTInterval NaN', () => stats.meanTInterval([0.5, NaN]), /\bvalues\b/],
  ['pitmanMorganTest two units', () => stats.pitmanMorganTest([1, 2], [2, 1]), /\ba\b/],
  ['correlationTest two units', () => stats.correlationTest([1, 2], [2, 1]), /\ba\b/],
  [
    'correlatedSelectionInflation correlation 1.5',
    () => stats.correlatedSelectionInflation({ sigma: 0.1, selectedFrom: 5, correlation: 1.5 }),
    /correlation/,
  ],
  ['noncentralTCdf df 0', () => stats.noncentralTCdf(1, 0, 1), /\bdf\b/],
  ['twoSidedTPower df 0', () => stats.twoSidedTPower(0, 1, 2), /\bdf\b/],
  ['requiredSeeds delta 0', () => stats.requiredSeeds({ sdA: 0.1, delta: 0 }), /delta/],
  ['fisherExactGreater c1 > n1', () => stats.fisherExactGreater(9, 8, 3, 8), /\bc1\b/],
  ['holmAdjust p 1.2', () => stats.holmAdjust([1.2]), /p-value/],
  ['trajectoryFalls NaN', () => stats.trajectoryFalls([NaN, 1]), /values\[0\]/],
  ['chiSquareCdf df 0', () => stats.chiSquareCdf(1, 0), /\bdf\b/],
  ['chiSquareQuantile p 1.5', () => stats.chiSquareQuantile(1.5, 3), /\bp\b/],
  ['noiseStandardDeviations one seed', () => stats.noiseStandardDeviations([0.5], [0.6]), /seeds/],
  [
    'nestedNoiseStandardDeviations one base agent',
    () => stats.nestedNoiseStandardDeviations([[0.5, 0.6]], [[0.5, 0.6]]),
    /groups/,
  ],
  [
    'nestedNoiseStandardDeviations unbalanced',
    () => stats.nestedNoiseStandardDeviations([[0.5, 0.6], [0.4]], [[0.5, 0.6], [0.4]]),
    /groups/,
  ],
  [
    'nestedNoiseStandardDeviations NaN',
    () =>
      stats.nestedNoiseStandardDeviations(
        [
          [0.5, NaN],
          [0.4, 0.3],
        ],
        [
          [0.5, 0.6],
          [0.4, 0.3],
        ],
      ),
    /\ba\b/,
  ],
  ['standardDeviationInterval one value', () => stats.standardDeviationInterval([0.5]), /values/],
  ['meanStandardError one value', () => stats.meanStandardError([0.5]), /values/],
];

describe('every exported statistic refuses impossible input with a StatisticsError (a RangeError) naming the argument', () => {
  it.each(CASES)('%s', (_label, call, names) => {
    let thrown: unknown;
    let returned: unknown;
    try {
      returned = call();
    } catch (error) {
      thrown = error;
    }
    expect(returned).toBeUndefined();
    expect(thrown).toBeInstanceOf(stats.StatisticsError);
    expect(thrown).toBeInstanceOf(RangeError);
    expect((thrown as Error).message).toMatch(names);
  });

  it('a count beyond what the power functions count is a BeyondCountError, so a caller can say "beyond"', () => {
    for (const call of [
      () => stats.requiredUnits({ sigma: 1e300, delta: 1e-300 }),
      () => stats.requiredSeeds({ sdA: 0.1, delta: 1e-6 }),
    ]) {
      expect(call).toThrow(stats.BeyondCountError);
      expect(call).toThrow(stats.StatisticsError);
    }
    // An argument out of range is not one.
    let thrown: unknown;
    try {
      stats.requiredSeeds({ sdA: 0.1, delta: 0 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(stats.StatisticsError);
    expect(thrown).not.toBeInstanceOf(stats.BeyondCountError);
  });

  it('covers every exported function', () => {
    const exported = Object.entries(stats)
      .filter(
        ([, value]) =>
          typeof value === 'function' && value !== stats.StatisticsError && value !== stats.BeyondCountError,
      )
      .map(([name]) => name);
    const covered = new Set(CASES.map(([label]) => label.split(' ')[0]));
    expect(exported.filter((name) => !covered.has(name))).toEqual([]);
  });
});
