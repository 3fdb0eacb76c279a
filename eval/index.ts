/**
 * TinyAgent's evaluation statistics: pure functions on numbers. Nothing in eval/ imports gym,
 * agent, train, experiments or cli (lib/ only), so that it loads without TensorFlow; random
 * functions take a `RandomSource` in their options. Reading result files is in eval/io/.
 */
/** What every statistic below throws on input it cannot answer (a RangeError). */
export { StatisticsError } from '../lib/errors.ts';

// pass@k and accuracies (chapter 17.2, METRICS.md)
export { passAtK, plugInPassAtK, allCorrectAtK, exactPassAtK } from './passAtK.ts';
export { prefixPassAtK, prefixAllCorrectAtK, meanAccuracy, firstSampleAccuracy } from './passAtK.ts';
export type { Outcomes } from './passAtK.ts';

// one-proportion intervals (chapter 17.3)
export { waldInterval, wilsonInterval, clopperPearsonInterval } from './proportionInterval.ts';
export { jeffreysInterval, agrestiCoullInterval, proportionInterval } from './proportionInterval.ts';
export { PROPORTION_METHODS } from './proportionInterval.ts';
export { intervalCoverage, exactOverUnits, withoutCollapse, type Interval } from './proportionInterval.ts';

// bootstrap (chapter 17.3, 17.4)
export { bootstrapCI, bootstrapMeans, DEFAULT_REPLICATES, expandedPercentileLevel } from './bootstrap.ts';
export { percentileInterval, percentileOfSorted } from './bootstrap.ts';
export { taskBootstrapCI, perTaskBootstrapCI, episodeBootstrapCI } from './clusterBootstrap.ts';
export { percentileCoverage, taskBootstrapDistribution } from './clusterBootstrap.ts';

// clustering, comparison, power, selection (chapter 17.3, 17.4, 17.8)
export { clusteredStandardError, episodeStandardError, intraclassCorrelation } from './clustered.ts';
export { taskVarianceIntraclassCorrelation, designEffect } from './clustered.ts';
export { meanDifference, pairedStandardError, unpairedStandardError, pearsonCorrelation } from './paired.ts';
export { pairedBootstrapDiff, welchInterval, meanTInterval, pairedTInterval } from './paired.ts';
export { pitmanMorganTest, correlationTest } from './paired.ts';
export { BeyondCountError, requiredUnits, requiredSeeds, twoSidedTPower, type PowerDesign } from './power.ts';
export { expectedMaxNormal, winnersCurseSimulation, correlatedSelectionInflation } from './winnersCurse.ts';

// aggregates over seeds x tasks (rliable, Agarwal et al. 2021) and tests across seeds
export { AGGREGATE_REPS, stratifiedBootstrap, rliableAggregates } from './stratifiedBootstrap.ts';
export { probabilityOfImprovementInterval, probabilityOfImprovement } from './stratifiedBootstrap.ts';
export type { AggregateMetric, Estimate } from './stratifiedBootstrap.ts';
export { binomialTestGreater, fisherExactGreater, holmAdjust } from './fisherExactTest.ts';
export { countDropDetection, pairedDropTestPower } from './fisherExactTest.ts';
export { noiseStandardDeviations, nestedNoiseStandardDeviations } from './noiseStandardDeviation.ts';
export { standardDeviationInterval } from './noiseStandardDeviation.ts';

// descriptive helpers, distributions and random variates for simulations
export { mean, sampleVariance, sampleStandardDeviation, meanStandardError } from './describe.ts';
export { pooledStandardDeviation, shannonEntropy } from './describe.ts';
export { normalQuantile, normalCdfStandard } from './normal.ts';
export { binomialPmf, betaBinomialPmf, convolvePmf, binomialEstimatorMoments } from './discrete.ts';
export { sampleBinomial, sampleBeta, sampleStandardNormal } from './random.ts';

// the chapter's exercises: a Bayesian interval, change points, the design review
export { betaBinomialMeanPosterior } from './betaBinomialMeanPosterior.ts';
export { fallOnset, trajectoryFalls, changePointBootstrap } from './changePoint.ts';
export { designReview } from './designReview.ts';
