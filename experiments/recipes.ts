/**
 * Recipes compared over seeds on the development split, and the pre-registered choice.
 *
 * Question: which training recipe should the project use, chosen as docs/RECIPES.md fixed before
 *   any candidate ran? Each candidate is a study of 8 seeds (studies/recipes-dev/NAME, a
 *   `devSplit` recipe: trained outside the development split, evaluated on its five tasks, no
 *   held-out task played). For each: pass@1 at steps 0, 30 and 80 (mean with the t interval on
 *   the seed means, IQM with whole seeds redrawn, SD with its chi-square interval), step 30's training- and
 *   evaluation-noise SDs, and step 80's difference from the default with a 99% interval
 *   (Bonferroni over five comparisons; paired t on the seeds that share their step-0 agent and
 *   episodes, else Welch); then the rule, line by line, and the choice.
 * Command: npm run exp:recipes [-- --seed S]
 * Runtime: reads the committed studies' job outputs (`tinyagent study run` makes them, about
 *   10 to 25 min of training per candidate); seconds, most of it the 50,000-replicate intervals.
 * Output: results/recipes.json, results/recipes.md. Candidates not yet run (no study, or one
 *   with jobs not done) are listed as such, and the choice waits for all of them.
 */
import { join } from 'node:path';
import { finishedStudy, loadResults, sharedSeeds, evaluationOf, type StudyResults } from '../study/index.ts';
import { stepAggregates } from '../analysis/index.ts';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import {
  noiseStandardDeviations,
  pairedTInterval,
  standardDeviationInterval,
  twoSidedTPower,
  welchInterval,
} from '../eval/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { markdownTable } from '../publish/markdown.ts';
import { UsageError } from '../lib/errors.ts';
import {
  coverageNote,
  eightSeeds,
  MEAN_OVER_SEEDS_METHOD,
  TRAINING_SD_METHOD,
} from '../publish/coverageNotes.ts';

/** The pre-registered candidates (docs/RECIPES.md, section 1), in its table's order: a tie goes to the earlier. */
export const CANDIDATES = ['default', 'entropy-0', 'lr-0.0005', 'epochs-2', 'kl-0.1', 'bc-160'] as const;
/** Bonferroni over the five comparisons with the default (docs/RECIPES.md, section 3). */
export const RULE_LEVEL = 1 - 0.05 / 5;
const STEPS = [0, 30, 80] as const;

const f3 = (value: number) => value.toFixed(3);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${f3(value)}`;
const interval = (low: number | null, high: number | null) =>
  low === null || high === null ? '(n/a: one seed)' : `[${f3(low)}, ${f3(high)}]`;

/** One candidate study's numbers on the development split. */
function candidateNumbers(results: StudyResults, seed: number) {
  const steps = STEPS.map((step) => {
    const values = results.seeds.map((s) => evaluationOf(results, s, step).passAt1);
    const { mean: meanEstimate, iqm } = stepAggregates(results, step, { seed });
    return { step, mean: meanEstimate, iqm, sd: standardDeviationInterval(values), values };
  });
  const at = (label: string) => results.seeds.map((s) => evaluationOf(results, s, 30, label).passAt1);
  return { seeds: results.seeds, steps, noise30: noiseStandardDeviations(at('a'), at('b')) };
}

/**
 * Step 80's difference candidate - default at `level`: paired on shared seeds (2 or more), else
 * Welch over all.
 */
function differenceFromDefault(candidate: StudyResults, base: StudyResults, level = RULE_LEVEL) {
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
 * The power the rule's test had (docs/CLAIMS.md, section 6): the chance that its interval's lower
 * end clears 0 for a candidate `gain` above the default, with the design's standard error and
 * degrees of freedom as measured (a noncentral t; the two-sided power, whose lower tail is nil here).
 */
function rulePower(difference: { standardError: number; df: number | null }, gain: number): number | null {
  if (difference.df === null || !(difference.standardError > 0)) return null;
  const critical = tQuantile(1 - (1 - RULE_LEVEL) / 2, difference.df);
  return twoSidedTPower(difference.df, Math.min(37, gain / difference.standardError), critical);
}

export async function main({
  seed = 0,
  outDir = join(ROOT, 'results'),
  studiesDir = join(ROOT, 'studies', 'recipes-dev'),
  echo = false,
}: { seed?: number; outDir?: string; studiesDir?: string; echo?: boolean } = {}) {
  // A candidate counts once every evaluation of its study is done; one still running is not run yet.
  const states = new Map(CANDIDATES.map((name) => [name, finishedStudy(join(studiesDir, name))]));
  const finished = CANDIDATES.flatMap((name) => {
    const state = states.get(name)!;
    return state.state === 'finished' ? [{ name, ...state }] : [];
  });
  const ran = finished.map(({ name }) => name);
  const loaded = new Map(finished.map(({ name, plan }) => [name, loadResults(plan)]));
  // Which code made each candidate's outputs (study report's rule, agent/fingerprint.ts): named, not refused here.
  const mixedCode = finished.flatMap(({ name, mixedCode: text }) =>
    text === undefined ? [] : [{ name, text }],
  );
  const tasks = loaded.get(ran[0] ?? 'default')?.tasks.map((task) => task.name) ?? [];
  const candidates = ran.map((name) => ({ name, ...candidateNumbers(loaded.get(name)!, seed) }));
  const base = loaded.get('default');
  const baseNoise = candidates.find((c) => c.name === 'default')?.noise30.training.estimate;
  // The most a candidate could gain at step 80: the default's distance from 1.
  const baseStep80 = candidates.find((c) => c.name === 'default')?.steps.find((s) => s.step === 80);
  const largestGain = baseStep80 === undefined ? undefined : 1 - baseStep80.mean.estimate;
  const rule =
    base === undefined
      ? []
      : ran
          .filter((name) => name !== 'default')
          .map((name) => {
            const difference = differenceFromDefault(loaded.get(name)!, base);
            const noise = candidates.find((c) => c.name === name)!.noise30.training.estimate;
            const above = difference.low > 0;
            const steadier = noise <= baseNoise!;
            return {
              name,
              difference,
              difference95: differenceFromDefault(loaded.get(name)!, base, 0.95),
              powerAtLargestGain: rulePower(difference, largestGain!),
              trainingNoise30: noise,
              above,
              steadier,
              qualifies: above && steadier,
            };
          });
  const missing = CANDIDATES.filter((name) => !ran.includes(name));
  const qualifying = rule.filter((row) => row.qualifies);
  // The highest lower end; a tie at three decimals goes to the earlier candidate (the smaller change).
  const best = qualifying.reduce<(typeof qualifying)[number] | undefined>(
    (chosen, row) =>
      chosen === undefined || Number(f3(row.difference.low)) > Number(f3(chosen.difference.low))
        ? row
        : chosen,
    undefined,
  );
  const choice =
    missing.length > 0
      ? {
          status: 'pending' as const,
          chosen: null,
          text: `pending: ${missing.length} of ${CANDIDATES.length} candidates have not run (${missing.join(', ')}); the rule is applied once all have`,
        }
      : best === undefined
        ? {
            status: 'none-qualifies' as const,
            chosen: 'default',
            text: `no candidate qualifies: the default stays. The rule could not have shown much: at the largest gain the default leaves room for (${signed(largestGain!)} at step 80), its tests had power ${rule
              .map((row) => (row.powerAtLargestGain === null ? 'n/a' : f3(row.powerAtLargestGain)))
              .join(
                ', ',
              )} (${rule.map((row) => row.name).join(', ')}); a next comparison is sized by power first`,
          }
        : {
            status: 'chosen' as const,
            chosen: best.name,
            text: `${best.name} is chosen (the highest lower end among the qualifying), to be confirmed once on the held-out tasks`,
          };
  const numbers = {
    protocol: 'docs/RECIPES.md',
    split: 'development',
    tasks,
    ruleLevel: RULE_LEVEL,
    candidates: candidates.map(({ name, seeds, steps, noise30 }) => ({
      name,
      seeds,
      steps: steps.map(({ step, mean: m, iqm, sd }) => ({ step, mean: m, iqm, sd })),
      noise30,
    })),
    rule,
    missing,
    choice,
    mixedCode,
  };
  const stepTable = markdownTable(
    ['candidate', 'seeds', ...STEPS.flatMap((step) => [`step ${step} mean [95%]`, `step ${step} SD`])],
    candidates.map((c) => [
      c.name,
      String(c.seeds.length),
      ...c.steps.flatMap((s) => [
        `${f3(s.mean.estimate)} ${interval(s.mean.low, s.mean.high)}`,
        f3(s.sd.estimate),
      ]),
    ]),
  );
  const noiseTable = markdownTable(
    ['candidate', 'training-noise SD at 30 [95%]', 'evaluation-noise SD at 30 [95%]', 'IQM at 80 [95%]'],
    candidates.map((c) => [
      c.name,
      `${f3(c.noise30.training.estimate)} ${interval(c.noise30.training.low, c.noise30.training.high)}`,
      `${f3(c.noise30.evaluation.estimate)} ${interval(c.noise30.evaluation.low, c.noise30.evaluation.high)}`,
      `${f3(c.steps[2]!.iqm.estimate)} ${interval(c.steps[2]!.iqm.low, c.steps[2]!.iqm.high)}`,
    ]),
  );
  const ruleTable = markdownTable(
    [
      'candidate',
      'design',
      'step-80 difference [99%]',
      'lower end > 0',
      'power at the largest gain',
      'read at 95%',
      'training noise at 30 <= default',
      'qualifies',
    ],
    rule.map((row) => [
      row.name,
      row.difference.design === 'paired t' ? `paired t, ${row.difference.seeds.length} seeds` : 'Welch',
      `${signed(row.difference.difference)} ${interval(row.difference.low, row.difference.high)}`,
      row.above ? 'yes' : 'no',
      row.powerAtLargestGain === null ? 'n/a' : f3(row.powerAtLargestGain),
      `${row.difference95.low > 0 ? 'better' : row.difference95.high < 0 ? 'worse' : 'not shown better or worse'} (95% ${interval(row.difference95.low, row.difference95.high)})`,
      `${row.steadier ? 'yes' : 'no'} (${f3(row.trainingNoise30)})`,
      row.qualifies ? 'yes' : 'no',
    ]),
  );
  const markdown = [
    `Development split (${tasks.join(', ')}): no held-out task is played. The protocol, fixed before any candidate ran, is docs/RECIPES.md.`,
    '',
    '## Pass@1 by step',
    '',
    candidates.length === 0 ? 'No candidate has run.' : stepTable,
    '',
    '## Noise at step 30, IQM at step 80',
    '',
    candidates.length === 0 ? 'No candidate has run.' : noiseTable,
    '',
    `## The rule (99% intervals, Bonferroni over five comparisons)`,
    '',
    rule.length === 0
      ? `Not applied: ${base === undefined ? 'the default has not run' : 'no other candidate has run'}.`
      : ruleTable,
    '',
    `The 99% intervals' coverage is not simulated at 8 seeds (results/coverage.md simulates the paired t at 95%). ${coverageNote([eightSeeds(MEAN_OVER_SEEDS_METHOD), eightSeeds(TRAINING_SD_METHOD)])} The IQM's interval at 8 seeds is not simulated.`,
    '',
    `**Choice:** ${choice.text}.`,
    ...(mixedCode.length === 0
      ? []
      : ['', '**Mixed code.** ' + mixedCode.map(({ name, text }) => `${name}: ${text}.`).join(' ')]),
  ].join('\n');
  writeResults(outDir, {
    section: 'recipes',
    title: 'Recipes over seeds on the development split',
    seed,
    smoke: false,
    config: {
      studiesDir: 'studies/recipes-dev',
      candidates: CANDIDATES,
      steps: STEPS,
      ruleLevel: RULE_LEVEL,
    },
    numbers,
    markdown,
    echo: true,
  });
  return numbers;
}

if (isMain(import.meta.url)) {
  await runScript('exp:recipes', async () => {
    const { smoke, ...options } = parseStatisticsOptions(process.argv.slice(2));
    if (smoke) throw new UsageError('exp:recipes has no smoke run: it reads the committed candidate studies');
    await main({ ...options, echo: true });
  });
}
