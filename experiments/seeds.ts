/**
 * The chapter's claims across seeds.
 *
 * Question: is each claim of the chapter a property of the recipe or of one seed? A committed
 *   study of the default recipe (at least 16 seeds, every chapter step, 64 episodes per held-out
 *   task): for each claim the fraction of seeds in which it holds (Wilson 95% interval) and each
 *   seed's values; 17.4's training-noise SD with a bootstrap interval over seeds; 17.8's
 *   selection inflation; rliable's IQM, performance profiles and probability of improvement.
 * Command: npm run exp:seeds [-- --study DIR --seed S]
 * Runtime: a few seconds (reads the study's job outputs; `tinyagent study run` makes them).
 * Output: results/seeds.json, results/seeds.md, results/figures/seeds-*.svg (results/<study name>/
 *   for a study other than studies/default-16).
 */
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readPlan, loadResults, seedClaims, type SeedFraction } from '../study/index.ts';
import { UsageError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import { DEFAULT_STUDY, isMain, ROOT, runScript, writeResults } from './common.ts';
import { markdownTable } from './report/markdown.ts';
import { heatmapSvg, intervalChartSvg, lineChartSvg } from './figures.ts';

const f3 = (value: number) => value.toFixed(3);
const share = (claim: SeedFraction) =>
  `${claim.holds}/${claim.seeds} (${f3(claim.fraction)}, Wilson 95% [${f3(claim.wilson.low)}, ${f3(claim.wilson.high)}])`;

export interface SeedsOptions {
  study: string;
  seed: number;
  outDir: string;
}

export async function main(options: Partial<SeedsOptions> = {}) {
  const study = options.study ?? join(ROOT, DEFAULT_STUDY);
  const seed = options.seed ?? 1;
  const outDir =
    options.outDir ??
    (resolve(study) === resolve(ROOT, DEFAULT_STUDY)
      ? join(ROOT, 'results')
      : join(ROOT, 'results', basename(study)));
  const plan = readPlan(study);
  const results = loadResults(plan);
  const numbers = seedClaims(results, { rng: new Rng(seed).fork('seeds') });
  const { claims, noise, perSeed } = numbers;
  const smoke = plan.measure.stepScale !== 1;

  const strip = await intervalChartSvg({
    title: `Step-80 held-out pass@1 of each of ${numbers.seeds.length} seeds (IQM over seeds x tasks, stratified 95%)`,
    xTitle: '',
    yTitle: 'held-out pass@1',
    points: [
      ...perSeed.map((row) => ({
        group: 'step 80',
        series: 'seeds',
        estimate: row.passAt1[80]!,
        low: row.passAt1[80]!,
        high: row.passAt1[80]!,
      })),
      {
        group: 'step 80',
        series: 'IQM',
        estimate: numbers.iqm[80]!.estimate,
        low: numbers.iqm[80]!.low,
        high: numbers.iqm[80]!.high,
      },
    ],
  });
  const profile = await lineChartSvg({
    title: 'Performance profiles: the fraction of seed x task runs with a pass rate above tau',
    xTitle: 'tau',
    yTitle: 'fraction of runs above tau',
    series: ([0, 20, 80] as const).map((step) => ({
      name: `step ${step}`,
      points: numbers.profiles.taus.map((tau, i) => ({ x: tau, y: numbers.profiles.byStep[step][i]! })),
    })),
    yDomain: [0, 1],
  });
  const narrowing = await heatmapSvg({
    title: 'Step-80 minus base successes per held-out task and seed (* narrows by the exact paired test)',
    rowTitle: 'task',
    columnTitle: 'training seed',
    valueTitle: 'successes, step 80 - step 0',
    cells: perSeed.flatMap((row) => {
      const entries = loadedCounts(row);
      return entries.map((entry) => ({
        row: entry.task,
        column: String(row.seed),
        value: entry.delta,
        label: entry.narrows ? '*' : '',
      }));
    }),
  });
  function loadedCounts(row: (typeof perSeed)[number]) {
    const at = (step: number) => results.evaluations.get(row.seed)!.get(`${step}/a`)!;
    return at(0).perTask.map((count, t) => ({
      task: count.name,
      delta: at(80).perTask[t]!.successes - count.successes,
      narrows: row.narrowing.some((entry) => entry.task === count.name),
    }));
  }

  const markdown = [
    `Study \`${basename(study)}\`: recipe \`${plan.recipe}\`, ${numbers.seeds.length} seeds (${numbers.seeds.join(', ')}), ${numbers.episodes} episodes per held-out task at every chapter step.`,
    '',
    markdownTable(
      ['claim', 'holds in seeds'],
      [
        [
          '17.7: the base agent overtakes step 80 at some k <= 32 (mean pass@k over held-out tasks)',
          share(claims.overtakesBy32),
        ],
        ['17.7: step 20 at or above both at every k', share(claims.step20AtOrAbove)],
        [
          '17.7: a held-out task narrows (exact paired test at 0.05; below its peak Bonferroni over 7 steps)',
          share(claims.narrowsATask),
        ],
        ['17.5: greedy at or above the training temperature at step 80', share(claims.greedyAtOrAbove)],
        ['17.5: temperature 1.3 below the training temperature at step 80', share(claims.hotBelow)],
      ],
    ),
    '',
    markdownTable(
      ['quantity', 'across seeds'],
      [
        ...(['step30', 'step80'] as const).map((key) => [
          `17.4: training-noise SD at ${key.replace('step', 'step ')} (bootstrap 95% over seeds); evaluation-noise SD`,
          `${f3(noise[key].trainingSD)} [${f3(noise[key].trainingSDInterval.low)}, ${f3(noise[key].trainingSDInterval.high)}]; ${f3(noise[key].evaluationSD)}`,
        ]),
        [
          '17.8: selection inflation (test-selected minus validation-selected test score)',
          `mean ${f3(numbers.selectionInflation.mean)} [${f3(numbers.selectionInflation.interval.low)}, ${f3(numbers.selectionInflation.interval.high)}]`,
        ],
        [
          'step-80 held-out pass@1',
          `mean ${f3(numbers.step80.mean)}, SD ${f3(numbers.step80.sd)}, ${f3(numbers.step80.min)} to ${f3(numbers.step80.max)}`,
        ],
        ...([0, 20, 80] as const).map((step) => [
          `IQM at step ${step} (stratified bootstrap 95%)`,
          `${f3(numbers.iqm[step]!.estimate)} [${f3(numbers.iqm[step]!.low)}, ${f3(numbers.iqm[step]!.high)}]`,
        ]),
        [
          'P(step 80 > step 0) over seeds x tasks',
          `${f3(numbers.probabilityOfImprovement.estimate)} [${f3(numbers.probabilityOfImprovement.low)}, ${f3(numbers.probabilityOfImprovement.high)}]`,
        ],
      ],
    ),
    '',
    '## Narrowing: seeds in which each held-out task narrows',
    '',
    markdownTable(
      ['task', 'seeds'],
      numbers.narrowingCounts.map((row) => [row.task, `${row.seeds}/${numbers.seeds.length}`]),
    ),
    '',
    '## Each seed',
    '',
    'Held-out pass@1 at steps 0, 20 and 80; the first k at which the base agent is above step 80;',
    "whether step 20 is at or above both at every k; each narrowing task's successes (of 64) at step 0",
    'and step 80, and, when the drop is from a later peak rather than from the base agent, that step',
    'and its successes; step 80 greedy and at temperature 1.3; the selection inflation (17.8).',
    '',
    markdownTable(
      [
        'seed',
        'step 0',
        'step 20',
        'step 80',
        'overtake k',
        'step 20 above',
        'narrowing tasks',
        'greedy',
        'T 1.3',
        'inflation',
      ],
      perSeed.map((row) => [
        row.seed,
        f3(row.passAt1[0]!),
        f3(row.passAt1[20]!),
        f3(row.passAt1[80]!),
        row.overtakeK ?? 'none',
        row.step20AtOrAbove ? 'yes' : 'no',
        row.narrowing
          .map(
            (entry) =>
              `${entry.task} ${entry.base}->${entry.step80}` +
              (entry.pBelowBase < 0.05 ? '' : ` (step ${entry.peak.step}: ${entry.peak.successes})`),
          )
          .join(', ') || 'none',
        f3(row.greedy),
        f3(row.hot),
        f3(row.selection.inflation),
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
  });
  if (isMain(import.meta.url)) process.stdout.write(`${markdown}\n`);
  return numbers;
}

function parseSeedsOptions(argv: string[]): Partial<SeedsOptions> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { study: { type: 'string' }, seed: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]} (options: --study DIR, --seed S)`);
  }
  if (values.seed !== undefined && !/^\d{1,9}$/.test(values.seed))
    throw new UsageError(`--seed must be a decimal integer, got '${values.seed}'`);
  return {
    ...(values.study !== undefined ? { study: values.study } : {}),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
  };
}

if (isMain(import.meta.url))
  await runScript('exp:seeds', () => main(parseSeedsOptions(process.argv.slice(2))));
