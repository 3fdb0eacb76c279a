/**
 * The interval methods the results report, by the id reports and commands cite each by
 * (`npm run exp:coverage` simulates each: coverageMethods.ts's METHODS), and what each id prints as.
 */
export const CLAIM_RATE_METHOD = 'claim-rate';
export const WILSON_METHOD = 'wilson';
export const MEAN_OVER_SEEDS_METHOD = 'mean-over-seeds';
export const TRAINING_SD_METHOD = 'training-sd';
export const EVALUATION_SD_METHOD = 'evaluation-sd';
export const IQM_METHOD = 'iqm';
export const PROFILE_METHOD = 'profile';
export const IMPROVEMENT_METHOD = 'improvement';
export const TASK_BOOTSTRAP_METHOD = 'task-bootstrap';
export const TASK_BOOTSTRAP_BOUNDARY_METHOD = 'task-bootstrap-boundary';
export const EPISODE_BOOTSTRAP_METHOD = 'episode-bootstrap';
export const CREDIBLE_INTERVAL_METHOD = 'credible-interval';
export const WELCH_METHOD = 'welch';
export const SEED_BOOTSTRAP_METHOD = 'seed-bootstrap-difference';
export const PAIRED_T_METHOD = 'paired-t';
/** A 17.8 figure's t interval over seeds, with its own per-seed values. */
export const selectionMethod = (figure: string) => `selection-${figure}`;
/** The same method at a recipe's 8 seeds (exp:recipe-claims). */
export const eightSeeds = (id: string) => `${id}-8`;

const LABELS: Record<string, string> = {
  [CLAIM_RATE_METHOD]: 'two-stage interval of a claim rate over seeds',
  [WILSON_METHOD]: 'Wilson interval of a claim count over seeds',
  [MEAN_OVER_SEEDS_METHOD]: 't interval of a mean over seeds',
  [TRAINING_SD_METHOD]: 'training-noise SD, chi-square',
  [EVALUATION_SD_METHOD]: 'evaluation-noise SD, chi-square',
  [IQM_METHOD]: 'IQM over seeds x tasks, whole seeds redrawn',
  [PROFILE_METHOD]: 'performance profile at tau 0.5, whole seeds redrawn',
  [IMPROVEMENT_METHOD]: 'P(step 80 > step 0), whole seeds redrawn',
  [TASK_BOOTSTRAP_METHOD]: 'task (cluster) bootstrap of the mean',
  [TASK_BOOTSTRAP_BOUNDARY_METHOD]: 'task bootstrap of the mean, exact over tasks where it collapses',
  [EPISODE_BOOTSTRAP_METHOD]: 'episode bootstrap (of these tasks)',
  [CREDIBLE_INTERVAL_METHOD]: 'beta-binomial credible interval',
  [WELCH_METHOD]: 'Welch interval of B - A',
  [SEED_BOOTSTRAP_METHOD]: 'bootstrap over seeds of B - A',
  [PAIRED_T_METHOD]: 'paired t interval of B - A (8 shared seeds)',
  [selectionMethod('winnersCurse')]: "17.8's winner's curse (ours), t over seeds",
  [selectionMethod('winnersCurseReverse')]: "17.8's winner's curse the other way round, t over seeds",
  [selectionMethod('realAdvantage')]: "17.8's real advantage of the test pick, t over seeds",
  [selectionMethod('testSelectionGain')]: "17.8's test-selection gain, t over seeds",
  [selectionMethod('bookCurse')]: "17.8's winner's curse in the book's design, t over seeds",
};

/** What each method id prints as. */
export function methodLabel(id: string): string {
  const eight = id.endsWith('-8');
  const label = LABELS[eight ? id.slice(0, -2) : id];
  if (label === undefined) throw new RangeError(`no coverage method '${id}'`);
  return eight ? `${label} (8 seeds)` : label;
}
