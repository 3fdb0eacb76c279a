/** The numbers of exercise 7 (experiments/ex-7.ts): the design review of a reported improvement. */
import { correlatedSelectionInflation, designReview } from '../../eval/index.ts';
import type { DesignReviewOptions } from '../../eval/designReview.ts';

/**
 * What exercise 7 reports: the review of `claim` (`designReview`, training noise left out, then a
 * seed SD of 0.01 per arm), and the best-of-K inflation for checkpoints correlated as measured
 * (`checkpoints`: the correlation and where it was read), beside the independent upper bound.
 */
export function designReviewNumbers(
  claim: Omit<DesignReviewOptions, 'correlation' | 'seedSD'>,
  checkpoints: { source: string; correlation: number },
) {
  const review = designReview({ ...claim, correlation: null, seedSD: 0 });
  const withTrainingNoise = designReview({ ...claim, correlation: null, seedSD: 0.01 });
  // sigma E[max of K] assumes the K evaluations independent: an upper bound. Checkpoints of one
  // run scored on the same tasks correlate.
  const correlatedSelection = {
    source: checkpoints.source,
    correlation: checkpoints.correlation,
    inflation: correlatedSelectionInflation({
      sigma: review.selection.evaluationSD,
      selectedFrom: claim.selectedFrom,
      correlation: checkpoints.correlation,
    }),
  };
  return { claim, review, withTrainingNoise, correlatedSelection };
}

export type NumbersEx7 = ReturnType<typeof designReviewNumbers>;
