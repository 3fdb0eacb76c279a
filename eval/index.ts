/**
 * TinyAgent's evaluation statistics: pure functions on numbers (pass@k, intervals, bootstrap,
 * clustered errors, power, winner's curse). Nothing in eval/ imports gym, agent, train, experiments or cli (lib/ only, for atomic writes and error classes);
 * random functions take a `RandomSource` in their options.
 * Reading result files is I/O and lives in eval/io/.
 */
export type { RandomSource } from './randomSource.ts';
/** What every statistic below throws on input it cannot answer (a RangeError). */
export { StatisticsError } from '../lib/errors.ts';

// pass@k and accuracies (chapter 17.2, METRICS.md)
export { passAtK, plugInPassAtK, allCorrectAtK } from './passAtK.ts';
export { prefixPassAtK, prefixAllCorrectAtK, type Outcomes } from './prefix.ts';
export { meanAccuracy, firstSampleAccuracy } from './accuracy.ts';
export { exactPassAtK } from './exactPassAtK.ts';

// one-proportion intervals (chapter 17.3)
export {
  waldInterval,
  wilsonInterval,
  clopperPearsonInterval,
  jeffreysInterval,
  agrestiCoullInterval,
  proportionInterval,
  PROPORTION_METHODS,
  intervalCoverage,
  type Interval,
} from './proportionInterval.ts';

// bootstrap (chapter 17.3, 17.4)
export {
  bootstrapCI,
  bootstrapMeans,
  DEFAULT_REPLICATES,
  percentileOfSorted,
  type BootstrapInterval,
} from './bootstrap.ts';
export { taskBootstrapCI, episodeBootstrapCI } from './clusterBootstrap.ts';
export { exactOverUnits, withoutCollapse } from './exactOverUnits.ts';
export { pairedBootstrapDiff } from './pairedBootstrap.ts';
export { taskRates } from './counts.ts';
export { percentileCoverage, taskBootstrapDistribution } from './exactBootstrap.ts';

// clustering, comparison, power, selection (chapter 17.3, 17.4, 17.8)
export {
  clusteredStandardError,
  episodeStandardError,
  intraclassCorrelation,
  designEffect,
} from './clustered.ts';
export { taskVarianceIntraclassCorrelation } from './taskVarianceIntraclassCorrelation.ts';
export { meanDifference, pairedStandardError, unpairedStandardError, pearsonCorrelation } from './paired.ts';
export { requiredUnits, type PowerDesign } from './requiredUnits.ts';
export { expectedMaxNormal, winnersCurseSimulation } from './winnersCurse.ts';

// aggregates over seeds x tasks (rliable, Agarwal et al. 2021) and tests across seeds
export {
  AGGREGATE_REPS,
  stratifiedBootstrap,
  probabilityOfImprovementInterval,
  probabilityOfImprovement,
  type Estimate,
} from './stratifiedBootstrap.ts';
export { AGGREGATE_METRICS, rliableAggregates, type AggregateMetric } from './aggregateMetrics.ts';
export { welchInterval, meanTInterval, pairedTInterval } from './pairedTInterval.ts';
export { pitmanMorganTest, correlationTest } from './correlationTest.ts';
export { correlatedSelectionInflation } from './correlatedSelection.ts';
export { twoSidedTPower } from './noncentralT.ts';
export { requiredSeeds } from './requiredSeeds.ts';
export { binomialTestGreater, fisherExactGreater, holmAdjust } from './fisherExactTest.ts';
export {
  nestedNoiseStandardDeviations,
  noiseStandardDeviations,
  standardDeviationInterval,
} from './noiseStandardDeviation.ts';

// descriptive helpers and random variates for simulations
export { mean, sampleVariance, sampleStandardDeviation, meanStandardError } from './describe.ts';
export { pooledStandardDeviation, shannonEntropy } from './describe.ts';
export { normalQuantile, normalCdfStandard } from './normal.ts';
export { binomialPmf, betaBinomialPmf, convolvePmf } from './discrete.ts';
export { sampleBinomial, sampleBeta, sampleStandardNormal } from './random/sampleBeta.ts';

// Playing episodes to evaluate an agent (`evaluate`) lives with the agent (agent/evaluate.ts):
// eval/ is statistics, result-file I/O (eval/io/) and reports (eval/report/), and loads without
// TensorFlow.

// the chapter's exercises: estimator moments, a Bayesian interval, change points, entropy, design review
export { binomialEstimatorMoments } from './binomialEstimatorMoments.ts';
export { betaBinomialMeanPosterior, type PosteriorInterval } from './betaBinomialMeanPosterior.ts';
export { changePoint, fallOnset, trajectoryFalls } from './changePoint.ts';
export { changePointBootstrap } from './changePointBootstrap.ts';
export { designReview } from './designReview.ts';
export { countDropDetection, pairedDropTestPower } from './dropDetection.ts';
export { expandedPercentileLevel } from './expandedPercentileLevel.ts';
