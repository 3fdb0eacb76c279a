/**
 * The chapter's claims across seeds.
 *
 * Question: is each claim of the chapter a property of the recipe or of one seed? A committed
 *   study of the default recipe (at least 16 seeds, every chapter step, 64 episodes per held-out
 *   task): for each claim, in the book's sense and read literally, the seeds in which it holds
 *   (Wilson 95% on the count, a two-stage bootstrap over seeds and episodes on the rate), each
 *   seed's verdict with the probability it survives a resampling of its episodes; every held-out
 *   task's trajectory with its falls and their tests; 17.4's training- and evaluation-noise SDs
 *   with chi-square intervals; 17.8's winner's curse on fresh episodes; rliable's mean, IQM,
 *   performance profiles and probability of improvement with stratified-bootstrap intervals.
 * Command: npm run exp:seeds [-- --study DIR --seed S --out DIR]
 * Runtime: measured 50 to 58 s wall, 11.6 to 14.3 s of CPU, at a load average of 12 to 17 on
 *   the 2 cores (3.9 s wall before the episode resamples and 50,000-replicate intervals); it
 *   reads the study's job outputs, which `tinyagent study run` makes.
 * Output: results/seeds.json, results/seeds.md, results/figures/seeds-*.svg (results/<study name>/
 *   for a study other than studies/default-16).
 */
import { basename, join, resolve } from 'node:path';
import {
  CLAIMS,
  DECIDED,
  readPlan,
  loadResults,
  seedClaims,
  type ClaimName,
  type SeedFraction,
} from '../study/index.ts';
import { taskBootstrapCI } from '../eval/index.ts';
import { UsageError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import { DEFAULT_STUDY, isMain, parseScriptFlags, ROOT, runScript, writeResults } from './common.ts';
import { markdownTable } from './report/markdown.ts';
import { IMPROVEMENT_METHOD, IQM_METHOD, MEAN_OVER_SEEDS_METHOD, coverageNote } from './coverageNotes.ts';

/** The interval methods seeds.md prints whose coverage exp:coverage measures (its METHODS' names). */
const SEEDS_COVERAGE = [
  'Wilson, a claim over seeds',
  MEAN_OVER_SEEDS_METHOD,
  'training-noise SD, chi-square (reported)',
  'evaluation-noise SD, chi-square (reported)',
  IQM_METHOD,
  IMPROVEMENT_METHOD,
];
import { bandPanelsSvg, heatmapSvg, intervalChartSvg } from './figures.ts';

const f3 = (value: number) => value.toFixed(3);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${f3(value)}`;
const range = ({ low, high }: { low: number; high: number }) => `[${f3(low)}, ${f3(high)}]`;
const withInterval = (value: { estimate: number; low: number; high: number }) =>
  `${f3(value.estimate)} ${range(value)}`;
const p1 = (p: number) => (p < 0.001 ? p.toExponential(0) : p.toFixed(3));

/** What each claim says, as the report's rows name it. */
export const CLAIM_TEXT: Record<ClaimName, string> = {
  step20AtOrAboveBase:
    "17.7, the book's sense (headline): step 20 at or above the base agent at every k (mean pass@k over held-out tasks)",
  step20AtOrAboveBoth: '17.7 read literally: step 20 at or above both the base agent and step 80 at every k',
  overtakesBy32: '17.7: the base agent overtakes step 80 at some k <= 32',
  narrowsBelowBase:
    "17.7, the book's narrowing (headline): a held-out task ends below the base agent (exact paired test, Holm over the tasks, 0.05)",
  narrowsBelowBaseUncorrected: 'the same, each task at 0.05 without the correction',
  lateTrainingInstability:
    'late-training instability: a task ends below an earlier peak (the most significant of steps 10 to 70, Bonferroni over the 7, Holm over the tasks)',
  fallsDuringTraining:
    "a task falls during training (a peak to the next trough of its trajectory, exact paired test, Holm over the seed's falls)",
  greedyAtOrAbove: '17.5: greedy at or above the training temperature at step 80',
  hotBelow: '17.5: temperature 1.3 below the training temperature at step 80',
};

/** Each claim in a few words: recipe-claims' figure and table, and the report page's verdict-table headers. */
export const CLAIM_SHORT: Record<ClaimName, string> = {
  step20AtOrAboveBase: '17.7 step 20 >= base (headline)',
  step20AtOrAboveBoth: '17.7 step 20 >= both (literal)',
  overtakesBy32: '17.7 base overtakes by k 32',
  narrowsBelowBase: '17.7 narrows below base (headline)',
  narrowsBelowBaseUncorrected: '17.7 narrows, uncorrected',
  lateTrainingInstability: 'late-training instability',
  fallsDuringTraining: 'falls during training',
  greedyAtOrAbove: '17.5 greedy >= T 1.0',
  hotBelow: '17.5 T 1.3 < T 1.0',
};

const share = (claim: SeedFraction) =>
  `${claim.holds}/${claim.seeds} (${f3(claim.fraction)}, Wilson ${range(claim.wilson)})`;
const undecided = (claim: SeedFraction) =>
  claim.undecided.map((entry) => `${entry.seed} (${entry.probability.toFixed(2)})`).join(', ') || 'none';

export interface SeedsOptions {
  study: string;
  seed: number;
  outDir: string;
}

export async function main(options: Partial<SeedsOptions> = {}) {
  const study = options.study ?? join(ROOT, DEFAULT_STUDY);
  const outDir =
    options.outDir ??
    (resolve(study) === resolve(ROOT, DEFAULT_STUDY)
      ? join(ROOT, 'results')
      : join(ROOT, 'results', basename(study)));
  const plan = readPlan(study);
  // The study's own eval seed by default, so that the aggregates equal the study report's.
  const seed = options.seed ?? plan.evalSeed;
  const results = loadResults(plan);
  const numbers = seedClaims(results, { seed });
  const { claims, noise, perSeed, aggregates, selection } = numbers;
  const smoke = plan.measure.stepScale !== 1;
  const seedCount = numbers.seeds.length;

  // Each seed's own evaluation interval, the task-level one the chapter recommends for one
  // checkpoint (tasks redrawn, 2,000 replicates, as `tinyagent eval` prints it), from a stream
  // of its own: no number of seeds.json depends on it.
  const figureRng = new Rng(seed).fork('figure/seed-intervals');
  const strip = await intervalChartSvg({
    title: `Step-80 held-out pass@1 of each of ${seedCount} seeds (task-level 95%, ${numbers.episodes} episodes per task), and the mean and IQM over seeds x tasks (stratified 95%)`,
    xTitle: '',
    yTitle: 'held-out pass@1',
    points: [
      ...perSeed.map((row) => {
        const interval = taskBootstrapCI(
          { successes: row.trajectories.map((task) => task.successes.at(-1)!), trials: numbers.episodes },
          { reps: 2000, rng: figureRng.fork(`seed-${row.seed}`) },
        );
        return {
          group: `seed ${row.seed}`,
          series: 'seeds',
          estimate: row.passAt1[80]!,
          low: interval.low,
          high: interval.high,
        };
      }),
      { group: 'mean', series: 'mean', ...aggregates[80].mean },
      { group: 'IQM', series: 'IQM', ...aggregates[80].iqm },
    ],
  });
  const profile = await bandPanelsSvg([
    {
      title:
        'Performance profiles: the share of seed x task scores above tau (stratified-bootstrap 95% bands)',
      xTitle: 'tau',
      yTitle: 'share of seed x task scores above tau',
      series: ([0, 20, 80] as const).map((step) => ({
        name: `step ${step}`,
        points: aggregates[step].profile!.map((point) => ({
          x: point.tau,
          y: point.estimate,
          low: point.low,
          high: point.high,
        })),
      })),
    },
  ]);
  const narrowing = await heatmapSvg({
    title:
      'Step-80 minus base successes per held-out task and seed (* below the base agent: exact paired test, Holm over the tasks)',
    rowTitle: 'task',
    columnTitle: 'training seed',
    valueTitle: 'successes, step 80 - step 0',
    cells: perSeed.flatMap((row) =>
      row.trajectories.map((task) => ({
        row: task.task,
        column: String(row.seed),
        value: task.successes.at(-1)! - task.successes[0]!,
        label: task.belowBase.holmP < 0.05 ? '*' : '',
      })),
    ),
    divergingAt: 0,
  });

  const significantFalls = perSeed.flatMap((row) =>
    row.trajectories
      .filter((task) => task.belowBase.holmP < 0.05 || task.falls.some((fall) => fall.holmP < 0.05))
      .map((task) => [
        row.seed,
        task.task,
        task.successes.join(' '),
        `step ${task.peak.step}: ${task.peak.successes}`,
        task.falls
          .filter((fall) => fall.holmP < 0.05)
          .map(
            (fall) =>
              `${fall.from.step} -> ${fall.to.step}: ${fall.from.successes} -> ${fall.to.successes} (${p1(fall.holmP)}${fall.troughFirstEdit === null ? '' : `; first edit \`${fall.troughFirstEdit.op}\` ${fall.troughFirstEdit.episodes}`})`,
          )
          .join('; ') || 'none',
        p1(task.belowBase.holmP),
      ]),
  );
  const trimmed = numbers.iqmTrimmedLow;
  const markdown = [
    `Study \`${basename(study)}\`: recipe \`${plan.recipe}\`, ${seedCount} seeds (${numbers.seeds.join(', ')}), ${numbers.episodes} episodes per held-out task at every chapter step.`,
    '',
    '## The claims',
    '',
    markdownTable(
      [
        'claim',
        'holds in seeds (Wilson 95% on the count)',
        'rate with seed and evaluation noise (two-stage bootstrap 95%)',
        'undecided seeds (verdict probability)',
      ],
      CLAIMS.map((name) => [
        CLAIM_TEXT[name],
        share(claims[name]),
        range(claims[name].twoStage),
        undecided(claims[name]),
      ]),
    ),
    '',
    `The Wilson interval takes each seed's verdict as exact: it says how often the recipe's seeds give this verdict when each is measured once, as here, at ${numbers.episodes} episodes per task. A verdict is itself the sign of a noisy difference: each seed's ${numbers.resamples.toLocaleString('en-US')} resamples of its episodes (each task's ${numbers.episodes} episodes drawn with replacement, the same draw at every checkpoint of the seed, which played the same episodes) give the probability that its verdict stays as measured (Monte Carlo SE at most ${f3(0.5 / Math.sqrt(numbers.resamples))}); a seed is undecided when that is below ${DECIDED}. The two-stage bootstrap redraws the seeds and, for each, one of its episode resamples (${numbers.reps.toLocaleString('en-US')} replicates): it estimates the same rate with both the seed-to-seed and the evaluation noise in its interval, and errs wide, since the resamples add evaluation noise to verdicts that already carry it (Davison & Hinkley 1997, section 3.8).`,
    '',
    '## Across seeds',
    '',
    markdownTable(
      ['quantity', 'across seeds'],
      [
        ...(['step30', 'step80'] as const).flatMap((key) => {
          const step = key.replace('step', 'step ');
          return [
            [
              `17.4: training-noise SD at ${step} (chi-square 95% on the seed-mean variance less the evaluation share)`,
              withInterval(noise[key].training),
            ],
            [
              `17.4: evaluation-noise SD at ${step} (chi-square 95%, ${seedCount} degrees of freedom)`,
              withInterval(noise[key].evaluation),
            ],
          ];
        }),
        [
          "17.8: winner's curse: the score of the step picked on the first half of the test episodes minus its score on the second half (t 95% over seeds)",
          `${signed(selection.winnersCurse.estimate)} ${range(selection.winnersCurse)}`,
        ],
        [
          "17.8: winner's curse the other way round (picked on the second half, scored on the first)",
          `${signed(selection.winnersCurseReverse.estimate)} ${range(selection.winnersCurseReverse)}`,
        ],
        [
          "17.8: the test pick's real advantage (its second-half score minus the validation pick's)",
          `${signed(selection.realAdvantage.estimate)} ${range(selection.realAdvantage)}`,
        ],
        [
          '17.8: test-selection gain (test pick minus validation pick, on the test episodes that picked it; >= 0 by construction)',
          `${signed(selection.testSelectionGain.estimate)} ${range(selection.testSelectionGain)}`,
        ],
        [
          'step-80 held-out pass@1 over seeds',
          `mean ${f3(numbers.step80.mean)}, SD ${f3(numbers.step80.sd)} (chi-square 95% ${range(numbers.step80.sdInterval)}), ${f3(numbers.step80.min)} to ${f3(numbers.step80.max)}`,
        ],
        ...([0, 20, 80] as const).flatMap((step) => [
          [
            `mean at step ${step} over seeds x tasks (stratified bootstrap 95%)`,
            withInterval(aggregates[step].mean),
          ],
          [
            `IQM at step ${step} (stratified bootstrap 95%; with the tasks redrawn too)`,
            `${withInterval(aggregates[step].iqm)}; ${range(aggregates[step].iqmTaskBootstrap!)}`,
          ],
        ]),
        [
          'P(step 80 > step 0) over seeds x tasks (stratified bootstrap 95%)',
          withInterval(numbers.probabilityOfImprovement),
        ],
      ],
    ),
    '',
    `The IQM is the mean of the middle half of the ${perSeed.length * perSeed[0]!.trajectories.length} seed x task scores: it drops the lowest and the highest quarter. At step 80 the lowest quarter (${trimmed.scores} scores) is mostly the tasks that collapsed, ${trimmed.byTask
      .slice(0, 3)
      .map((row) => `\`${row.task}\` ${row.scores}`)
      .join(
        ', ',
      )}, so the IQM (${f3(aggregates[80].iqm.estimate)}) leaves out the failure 17.7 is about, which the mean (${f3(aggregates[80].mean.estimate)}) keeps: read them side by side. Every bootstrap interval here comes from ${numbers.reps.toLocaleString('en-US')} replicates (rliable's default).`,
    '',
    coverageNote(SEEDS_COVERAGE),
    '',
    '## Narrowing and falls: seeds per held-out task',
    '',
    markdownTable(
      [
        'task',
        'ends below the base agent (Holm)',
        'below an earlier peak at step 80',
        'falls during training',
      ],
      numbers.byTask.map((row) => [
        row.task,
        `${row.belowBase}/${seedCount}`,
        `${row.lateTrainingInstability}/${seedCount}`,
        `${row.fallsDuringTraining}/${seedCount}`,
      ]),
    ),
    '',
    '## Trajectories',
    '',
    'Every task that falls significantly during training or ends below the base agent: its successes (of ' +
      `${numbers.episodes}) at steps 0 to 80, its peak, each fall from a peak to the next trough with its Holm-adjusted p (exact paired test, Holm over the seed's falls) and the first edit the trough checkpoint made most often on the task (of ${numbers.episodes} episodes), and the Holm-adjusted p of step 80 below step 0.`,
    '',
    markdownTable(
      ['seed', 'task', 'successes, steps 0 to 80', 'peak', 'falls (Holm p)', 'below base at 80 (Holm p)'],
      significantFalls,
    ),
    '',
    '## Each seed',
    '',
    `Held-out pass@1 at steps 0, 20 and 80; the first k at which the base agent is above step 80; step 80 greedy and at temperature 1.3; 17.8's winner's curse, the test pick's real advantage and the test-selection gain. Then each verdict (y or n) with the probability that it survives a resampling of the seed's episodes.`,
    '',
    markdownTable(
      [
        'seed',
        'step 0',
        'step 20',
        'step 80',
        'overtake k',
        'greedy',
        'T 1.3',
        "winner's curse",
        'real advantage',
        'test-selection gain',
      ],
      perSeed.map((row) => [
        row.seed,
        f3(row.passAt1[0]!),
        f3(row.passAt1[20]!),
        f3(row.passAt1[80]!),
        row.overtakeK ?? 'none',
        f3(row.greedy),
        f3(row.hot),
        signed(row.selection.winnersCurse),
        signed(row.selection.realAdvantage),
        signed(row.selection.testSelectionGain),
      ]),
    ),
    '',
    markdownTable(
      ['seed', ...CLAIMS],
      perSeed.map((row) => [
        row.seed,
        ...CLAIMS.map(
          (name) => `${row.verdicts[name] ? 'y' : 'n'} ${row.verdictProbability[name].toFixed(2)}`,
        ),
      ]),
    ),
  ].join('\n');
  writeResults(outDir, {
    section: 'seeds',
    title: "The chapter's claims across seeds",
    seed,
    smoke,
    config: {
      study: basename(study),
      recipe: plan.recipe,
      configHash: plan.configHash,
      seeds: plan.seeds,
      measure: plan.measure,
    },
    numbers,
    markdown,
    figures: { 'seeds-step80.svg': strip, 'seeds-profiles.svg': profile, 'seeds-narrowing.svg': narrowing },
    echo: isMain(import.meta.url),
  });
  return numbers;
}

function parseSeedsOptions(argv: string[]): Partial<SeedsOptions> {
  const values = parseScriptFlags(
    argv,
    { study: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } },
    '--study DIR, --seed S, --out DIR',
  );
  if (values.seed !== undefined && !/^\d{1,9}$/.test(values.seed))
    throw new UsageError(`--seed must be a decimal integer, got '${values.seed}'`);
  return {
    ...(values.study !== undefined ? { study: values.study } : {}),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
    ...(values.out !== undefined ? { outDir: resolve(values.out) } : {}),
  };
}

if (isMain(import.meta.url))
  await runScript('exp:seeds', () => main(parseSeedsOptions(process.argv.slice(2))));
