/**
 * The numbers of exercise 5 (experiments/ex-5.ts): which harness fields the canary catches. The
 * scripted canaries under each changed field against the training harness, and a trained
 * checkpoint as a canary of its own, against a tolerance measured from repeated evaluations.
 */
import type { Evaluation } from '../../agent/index.ts';
import { mean, sampleStandardDeviation } from '../../eval/index.ts';
import type { HarnessInput, ScriptedPolicy } from '../../gym/index.ts';
import { trainShape } from '../../train/index.ts';

/** Each scripted policy's success rate and mean reward under one harness. */
type CanaryEvaluations = ReadonlyArray<{ policy: ScriptedPolicy; evaluation: Evaluation }>;

const canaryRates = (canaries: CanaryEvaluations) =>
  canaries.map(({ policy, evaluation }) => ({
    policy,
    success: evaluation.passAt1,
    reward: mean(evaluation.records.map((record) => record.reward)),
    episodes: evaluation.records.length,
  }));

/**
 * What exercise 5 reports: the canaries under the training harness; the checkpoint's tolerance,
 * three SDs of one evaluation from its `repeated` independent pass@1 under the training harness
 * (the first is the one each change is compared with); per field its change (null where the
 * field has no other value), the canaries that moved beyond their tolerance (blind's: four
 * binomial SEs of its rate, the canary's own rule, gym/canary.ts; the others are deterministic)
 * and the checkpoint's move; and the training fields, which change a checkpoint, never an
 * evaluation (`evaluate` takes only harness fields).
 */
export function canaryNumbers({
  baseline: baselineEvaluations,
  step,
  repeated,
  changes,
}: {
  baseline: CanaryEvaluations;
  step: number;
  repeated: number[];
  changes: ReadonlyArray<{
    field: string;
    change: HarnessInput | null;
    note?: string;
    canaries: CanaryEvaluations;
    checkpoint: Evaluation | null;
  }>;
}) {
  const baseline = canaryRates(baselineEvaluations);
  const evaluationSD = sampleStandardDeviation(repeated);
  const tolerance = 3 * evaluationSD;
  const rows = changes.map(({ field, change, note, canaries, checkpoint }) => {
    if (change === null || checkpoint === null)
      return {
        field,
        change: null,
        note: note ?? null,
        moved: [],
        caughtByCanaries: null,
        checkpointMove: null,
        caughtByCheckpoint: null,
      };
    const moved = canaryRates(canaries).flatMap((row, i) => {
      const before = baseline[i]!;
      const allowed =
        row.policy === 'blind' ? 4 * Math.sqrt((before.success * (1 - before.success)) / before.episodes) : 0;
      const moves = { success: row.success - before.success, reward: row.reward - before.reward };
      return Math.abs(moves.success) > allowed + 1e-12 || Math.abs(moves.reward) > allowed + 1e-12
        ? [{ policy: row.policy, ...moves }]
        : [];
    });
    const checkpointMove = checkpoint.passAt1 - repeated[0]!;
    return {
      field,
      change,
      note: note ?? null,
      moved,
      caughtByCanaries: moved.length > 0,
      checkpointMove,
      caughtByCheckpoint: Math.abs(checkpointMove) > tolerance,
    };
  });
  return {
    baseline,
    checkpoint: { step, repeated, evaluationSD, tolerance },
    rows,
    trainingFields: Object.keys(trainShape),
  };
}

export type NumbersEx5 = ReturnType<typeof canaryNumbers>;
