/**
 * The numbers of `npm run exp:recipes` (experiments/recipes.ts): recipes compared over seeds on
 * the development split, and the pre-registered rule applied (docs/RECIPES.md).
 */
import {
  noiseStandardDeviations,
  pairedTInterval,
  standardDeviationInterval,
  welchInterval,
} from '../../eval/index.ts';
import { evaluationOf, sharedSeeds, type StudyResults } from '../../study/index.ts';
import { stepAggregates } from '../aggregates.ts';
import { rulePower } from '../claims.ts';

const f3 = (value: number) => value.toFixed(3);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${f3(value)}`;

/** One candidate study's numbers on the development split: each step's mean, IQM and SD over seeds, and step 30's noise SDs. */
function candidateNumbers(
  results: StudyResults,
  { steps, seed }: { steps: readonly number[]; seed: number },
) {
  const passAt1 = (step: number, label = 'a') =>
    results.seeds.map((s) => evaluationOf(results, s, step, label).passAt1);
  return {
    seeds: results.seeds,
    steps: steps.map((step) => {
      const { mean: meanEstimate, iqm } = stepAggregates(results, step, { seed });
      return { step, mean: meanEstimate, iqm, sd: standardDeviationInterval(passAt1(step)) };
    }),
    noise30: noiseStandardDeviations(passAt1(30, 'a'), passAt1(30, 'b')),
  };
}

/**
 * Step 80's difference candidate - default at `level`: paired on shared seeds (2 or more), else
 * Welch over all.
 */
function differenceFromDefault(candidate: StudyResults, base: StudyResults, level: number) {
  const shared = sharedSeeds(base, candidate);
  const at80 = (results: StudyResults, seeds: readonly number[]) =>
    seeds.map((seed) => evaluationOf(results, seed, 80).passAt1);
  if (shared.length >= 2) {
    const paired = pairedTInterval(at80(base, shared), at80(candidate, shared), { level });
    return { design: 'paired t' as const, seeds: shared, ...paired };
  }
  const welch = welchInterval(at80(base, base.seeds), at80(candidate, candidate.seeds), { level });
  return { design: 'Welch' as const, seeds: [] as number[], ...welch };
}

/**
 * The rule, line by line, for every candidate but the default: its step-80 difference at the
 * rule's level (and at 95%), the power at the largest gain the default leaves room for, and
 * whether it is above the default and at least as steady at step 30.
 */
function ruleRows(
  loaded: ReadonlyMap<string, StudyResults>,
  trainingNoise: (name: string) => number,
  { largestGain, level }: { largestGain: number; level: number },
) {
  const base = loaded.get('default')!;
  return [...loaded.keys()]
    .filter((name) => name !== 'default')
    .map((name) => {
      const difference = differenceFromDefault(loaded.get(name)!, base, level);
      const noise = trainingNoise(name);
      const above = difference.low > 0;
      const steadier = noise <= trainingNoise('default');
      return {
        name,
        difference,
        difference95: differenceFromDefault(loaded.get(name)!, base, 0.95),
        powerAtLargestGain: rulePower(difference, { gain: largestGain, level }),
        trainingNoise30: noise,
        above,
        steadier,
        qualifies: above && steadier,
      };
    });
}

/** The choice: pending until every candidate ran; else the qualifying candidate with the highest lower end, or the default. */
function choiceOf(
  rule: ReturnType<typeof ruleRows>,
  {
    missing,
    candidates,
    largestGain,
  }: { missing: readonly string[]; candidates: number; largestGain: number | undefined },
) {
  const qualifying = rule.filter((row) => row.qualifies);
  // The highest lower end; a tie at three decimals goes to the earlier candidate (the smaller change).
  const lowEnd = (row: (typeof rule)[number]) => Number(f3(row.difference.low));
  const best = qualifying.reduce<(typeof rule)[number] | undefined>(
    (chosen, row) => (chosen === undefined || lowEnd(row) > lowEnd(chosen) ? row : chosen),
    undefined,
  );
  if (missing.length > 0)
    return {
      status: 'pending' as const,
      chosen: null,
      text: `pending: ${missing.length} of ${candidates} candidates have not run (${missing.join(', ')}); the rule is applied once all have`,
    };
  if (best === undefined)
    return {
      status: 'none-qualifies' as const,
      chosen: 'default',
      text: `no candidate qualifies: the default stays. The rule could not have shown much: at the largest gain the default leaves room for (${signed(largestGain!)} at step 80), its tests had power ${rule
        .map((row) => (row.powerAtLargestGain === null ? 'n/a' : f3(row.powerAtLargestGain)))
        .join(', ')} (${rule.map((row) => row.name).join(', ')}); a next comparison is sized by power first`,
    };
  return {
    status: 'chosen' as const,
    chosen: best.name,
    text: `${best.name} is chosen (the highest lower end among the qualifying), to be confirmed once on the held-out tasks`,
  };
}

/** The training design's check learns when step 80's mean reaches this (docs/TRAINING-DESIGN.md, section 2). */
const DESIGN_LEARNS_AT = 0.7;

/**
 * The training design's pre-registered check on the development split (docs/TRAINING-DESIGN.md,
 * section 2), on the design candidates that ran, in their order (`order`): a candidate learns when
 * its step-80 mean is at least DESIGN_LEARNS_AT and the lower end of its t interval lies above the
 * upper end of step 0's; it is no less stable when its step-30 training-noise SD is at or below
 * `baselineNoise` (today's default on the same split). The first that passes both is the design;
 * the ones after it are not run. Pending while the next candidate in order has not run.
 */
function designCheck(
  designs: ReadonlyMap<string, StudyResults>,
  {
    order,
    baselineNoise,
    steps,
    seed,
  }: { order: readonly string[]; baselineNoise: number; steps: readonly number[]; seed: number },
) {
  const rows = [];
  for (const name of order) {
    const results = designs.get(name);
    if (results === undefined) break;
    const numbers = candidateNumbers(results, { steps, seed });
    const at = (step: number) => numbers.steps.find((row) => row.step === step)!.mean;
    const [low80, high0] = [at(80).low, at(0).high];
    const learns = at(80).estimate >= DESIGN_LEARNS_AT && low80 !== null && high0 !== null && low80 > high0;
    const stable = numbers.noise30.training.estimate <= baselineNoise;
    rows.push({ name, ...numbers, learns, stable, passes: learns && stable });
    if (learns && stable) break;
  }
  const adopted = rows.find((row) => row.passes)?.name ?? null;
  const status =
    adopted !== null
      ? ('passed' as const)
      : rows.length === order.length
        ? ('none-passed' as const)
        : ('pending' as const);
  return {
    protocol: 'docs/TRAINING-DESIGN.md, section 2',
    learnsAt: DESIGN_LEARNS_AT,
    baselineNoise,
    rows,
    adopted,
    status,
    notRun: order.slice(rows.length),
  };
}

/**
 * What exp:recipes reports: the development tasks, each finished candidate's numbers (`loaded`,
 * in the order of `candidates`), the rule at `ruleLevel` once the default ran, the candidates not
 * run, the choice, and the candidates whose outputs mixed code made.
 */
export function recipesNumbers({
  candidates: names,
  loaded,
  mixedCode,
  steps,
  ruleLevel,
  seed,
  designs = new Map(),
  designOrder = [],
}: {
  candidates: readonly string[];
  loaded: ReadonlyMap<string, StudyResults>;
  /** The training design's candidates that ran (docs/TRAINING-DESIGN.md), and their pre-registered order. */
  designs?: ReadonlyMap<string, StudyResults>;
  designOrder?: readonly string[];
  mixedCode: ReadonlyArray<{ name: string; text: string }>;
  steps: readonly number[];
  ruleLevel: number;
  seed: number;
}) {
  const ran = [...loaded.keys()];
  const candidates = ran.map((name) => ({ name, ...candidateNumbers(loaded.get(name)!, { steps, seed }) }));
  const trainingNoise = (name: string) => candidates.find((c) => c.name === name)!.noise30.training.estimate;
  // The most a candidate could gain at step 80: the default's distance from 1.
  const baseStep80 = candidates.find((c) => c.name === 'default')?.steps.find((s) => s.step === 80);
  const largestGain = baseStep80 === undefined ? undefined : 1 - baseStep80.mean.estimate;
  const rule = loaded.has('default')
    ? ruleRows(loaded, trainingNoise, { largestGain: largestGain!, level: ruleLevel })
    : [];
  const missing = names.filter((name) => !ran.includes(name));
  return {
    protocol: 'docs/RECIPES.md',
    split: 'development',
    tasks: loaded.get(ran[0] ?? 'default')?.tasks.map((task) => task.name) ?? [],
    ruleLevel,
    candidates,
    rule,
    missing,
    choice: choiceOf(rule, { missing, candidates: names.length, largestGain }),
    designCheck:
      designOrder.length > 0 && loaded.has('default')
        ? designCheck(designs, { order: designOrder, baselineNoise: trainingNoise('default'), steps, seed })
        : null,
    mixedCode,
  };
}

export type NumbersRecipes = ReturnType<typeof recipesNumbers>;
