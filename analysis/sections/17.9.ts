/**
 * The numbers of 17.9 (experiments/17.9.ts): design problems in practice. The spread of small
 * evaluations of one checkpoint, and two scripted canaries: a stacker that passes under the
 * training harness and fails without it, a gamer rewarded by a public reward it does not earn.
 */
import type { Evaluation } from '../../agent/index.ts';

/** A scripted policy's success rate and mean reward under one harness. */
function scriptedRates(evaluation: Evaluation) {
  const meanReward =
    evaluation.records.reduce((sum, record) => sum + record.reward, 0) / evaluation.records.length;
  return { success: evaluation.passAt1, meanReward, harnessHash: evaluation.provenance.harnessHash };
}

/** What 17.9 reports: the small evaluations' pass@1 and their range; each canary under its two harnesses. */
export function designProblemNumbers({
  noise,
  stacker,
  gamer,
}: {
  noise: readonly number[];
  stacker: { train: Evaluation; plain: Evaluation };
  gamer: { public: Evaluation; hidden: Evaluation };
}) {
  return {
    noise: { evaluations: noise, min: Math.min(...noise), max: Math.max(...noise) },
    stacker: { train: scriptedRates(stacker.train), plain: scriptedRates(stacker.plain) },
    gamer: { public: scriptedRates(gamer.public), hidden: scriptedRates(gamer.hidden) },
  };
}

export type Numbers179 = ReturnType<typeof designProblemNumbers>;
