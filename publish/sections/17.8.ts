/**
 * The report of 17.8 (experiments/17.8.ts): validation and test by checkpoint, selection by each,
 * the winner's curse measured and simulated, the four seeds at step 30 (Figure 17.4).
 */
import type { Numbers178 as Numbers } from '../../analysis/index.ts';
import { bandPanelsSvg, intervalChartSvg, intervalPoint } from '../figures.ts';
import {
  blocks,
  interval,
  markdownTable,
  oursAgainstBook,
  pct,
  reading,
  section,
  signed,
  table,
  whereOursDiffers,
  withInterval,
  type Report,
} from '../markdown.ts';

const BOOK = {
  validation: 'validation 0.975 at step 80; test flat near 0.74 from step 40',
  select: 'by validation: step 80, 0.744 on test; by test: step 70 reports 0.762',
  picks: 'steps 30 to 80, mode 50',
  gap: '0.795 vs 0.766 (+0.03)',
  gapInSE: 'about half the SE of one 40-episode evaluation',
  simulated: '+0.04 (sigma x E[max of 8 normals], E = 1.42)',
};

/** Figure 17.4: left validation and test pass@1 by checkpoint, right the four seeds' step-30 checkpoints with both intervals. */
async function selectionFigures({ table: byStep, seeds }: Numbers, episodes: number) {
  const selection = await bandPanelsSvg(
    [
      {
        title: `Figure 17.4 (left): validation and test pass@1 by checkpoint (${episodes} episodes per task, 5 tasks each)`,
        xTitle: 'step',
        yTitle: 'pass@1',
        series: (['validation', 'test'] as const).map((side) => ({
          name: side,
          points: byStep.map((row) => ({
            x: row.step,
            y: row[side],
            low: row[`${side}Low`],
            high: row[`${side}High`],
          })),
        })),
      },
    ],
    { width: 480 },
  );
  const seedFigure = await intervalChartSvg({
    title: 'Figure 17.4 (right): four seeds at step 30, episode- and task-level 95% intervals',
    xTitle: 'seed',
    yTitle: 'held-out pass@1',
    points: seeds.flatMap((row) => [
      intervalPoint(`seed ${row.seed}`, 'episode-level', row.passAt1, row.episodeLevel),
      intervalPoint(`seed ${row.seed}`, 'task-level', row.passAt1, row.taskLevel),
    ]),
  });
  return { '17.4-selection.svg': selection, '17.4-seeds-step30.svg': seedFigure };
}

type Curse = Numbers['curse']['sharedSeed'];

const pickedSteps = (curse: Curse) =>
  [...new Set(curse.picks.map((pick) => pick.step))].sort((a, b) => a - b).join(', ');

/** Where our winner's curse departs from the book's: whether our test score still rises at the last checkpoint, and what sharing a seed does. */
function curseDifference({ table: byStep, curse }: Numbers): string {
  const last = byStep[byStep.length - 1]!;
  const testPeak = byStep.reduce((best, row) => (row.test > best.test ? row : best));
  const testTrend =
    testPeak.step === last.step
      ? `ours keeps rising to ${pct(last.test)} at step ${last.step}, so the late picks are mostly the truly best checkpoint`
      : `ours peaks at ${pct(testPeak.test)} at step ${testPeak.step} and ends at ${pct(last.test)} at step ${last.step}, differences the five test tasks' intervals do not resolve`;
  const { sharedSeed, independentSeeds } = curse;
  const seeding =
    independentSeeds.optimism > sharedSeed.optimism
      ? `larger with a seed per candidate (${signed(independentSeeds.optimism)}) than with one seed shared by an evaluation's eight candidates (${signed(sharedSeed.optimism)}): shared random numbers correlate the candidates' scores, so their maximum is less of a lucky draw`
      : `not larger with a seed per candidate (${signed(independentSeeds.optimism)}) than with one seed shared by an evaluation's eight candidates (${signed(sharedSeed.optimism)}): here the shared random numbers do not shrink it`;
  return whereOursDiffers(
    `the book's test score is flat near 0.74 from step 40 (its test half holds \`speed\`, which narrows), so its eight late checkpoints are about equally good and the picks spread over steps 30 to 80; ${testTrend}. The measured gap is ${seeding}. The simulation, where the checkpoints are equally good and independent by construction, shows the full effect.`,
  );
}

/** The test task whose successes fall most from one step to a later one (the first such fall): what holds a test score down while the other tasks rise. */
function largestTestFall({ split, table: byStep }: Numbers, episodes: number): string {
  let fall = { size: 0, task: 0, from: 0, to: 0 };
  split.test.forEach((_, task) =>
    byStep.forEach((from, i) =>
      byStep.slice(i + 1).forEach((to) => {
        const size = from.testCounts[task]! - to.testCounts[task]!;
        if (size > fall.size) fall = { size, task, from: from.step, to: to.step };
      }),
    ),
  );
  if (fall.size === 0) return 'No test task falls from one step to a later one.';
  const counts = (step: number) => byStep.find((row) => row.step === step)!.testCounts[fall.task]!;
  return `The test task that falls furthest is \`${split.test[fall.task]}\`, from ${counts(fall.from)} of ${episodes} at step ${fall.from} to ${counts(fall.to)} at step ${fall.to}: while it is down, it holds the test score back as the other tasks rise.`;
}

function selectionSection(numbers: Numbers, episodes: number): string {
  const { split, table: byStep, byValidation, byTest } = numbers;
  return section(
    `Validation (${split.validation.join(', ')}) and test (${split.test.join(', ')}), ${episodes} episodes per task`,
    table(byStep, {
      step: (row) => row.step,
      'validation [task-level 95%]': (row) =>
        withInterval({ estimate: row.validation, low: row.validationLow, high: row.validationHigh }),
      'test [task-level 95%]': (row) =>
        withInterval({ estimate: row.test, low: row.testLow, high: row.testHigh }),
      [`test per task (${split.test.join(' ')}, of ${episodes})`]: (row) => row.testCounts.join(' '),
    }),
    markdownTable(
      ['selection', 'checkpoint', 'reported test pass@1', 'book'],
      [
        ['by validation', `step ${byValidation.step}`, pct(byValidation.test), BOOK.select],
        ['by test (the selection effect)', `step ${byTest.step}`, pct(byTest.test), ''],
      ],
    ),
    reading(
      `choosing on the test set reports the best of nine noisy test scores (${pct(byTest.test)}), ${signed(byTest.test - byValidation.test)} over the checkpoint chosen on validation; with five test tasks the test intervals overlap across most steps, so the test set cannot rank them. ${largestTestFall(numbers, episodes)} Book: ${BOOK.validation}.`,
    ),
  );
}

function curseSection(numbers: Numbers, smallEpisodes: number): string {
  const { split, byValidation, curse, simulated } = numbers;
  return section(
    `Winner's curse, measured: 10 test evaluations of ${smallEpisodes} episodes per test task, the 8 candidates of each sharing its seed and each with its own`,
    table(curse.sharedSeed.picks, {
      evaluation: (pick) => pick.evaluation,
      'shared seed: picked step': (pick) => pick.step,
      'shared: on its picking evaluation': (pick) => pct(pick.onPicking),
      'shared: mean on the other 9': (pick) => pct(pick.onRest),
      'own seeds: picked step': (pick) => curse.independentSeeds.picks[pick.evaluation]!.step,
      'own seeds: on its picking evaluation': (pick) =>
        pct(curse.independentSeeds.picks[pick.evaluation]!.onPicking),
      'own seeds: mean on the other 9': (pick) => pct(curse.independentSeeds.picks[pick.evaluation]!.onRest),
    }),
    oursAgainstBook([
      ...(
        [
          ['one seed per evaluation, shared by its 8 candidates', curse.sharedSeed],
          ['a seed per candidate', curse.independentSeeds],
        ] as const
      ).flatMap(([label, measured]) => [
        [`${label}: picked steps`, pickedSteps(measured), BOOK.picks] as const,
        [
          `${label}: on the picking evaluation vs the rest`,
          `${pct(measured.onPicking)} vs ${pct(measured.onRest)} (${signed(measured.optimism)})`,
          BOOK.gap,
        ] as const,
        [
          `${label}: the gap in SEs of one ${smallEpisodes * split.test.length}-episode evaluation (its SD over the 10, measured)`,
          `${(measured.optimism / measured.evaluationSD).toFixed(2)} (SD ${pct(measured.evaluationSD)})`,
          BOOK.gapInSE,
        ] as const,
      ]),
      [
        // The simulation's pass rate is the test score of the checkpoint chosen on validation.
        `simulated: 8 equally good checkpoints, 160 test episodes, p = ${pct(byValidation.test)}`,
        `${signed(simulated.bias)} (sigma x E[max of 8] = ${pct(simulated.predictedBias)}, E = ${simulated.e8.toFixed(2)})`,
        BOOK.simulated,
      ],
    ]),
    [
      reading(
        'the checkpoint that wins a small evaluation won partly by luck; scored again, it falls back. The gap is the optimism a number carries when the set that chose it also reports it.',
      ),
      curseDifference(numbers),
    ],
  );
}

function seedsSection({ seeds }: Numbers): string {
  return section(
    'Four seeds at step 30 (Figure 17.4, right)',
    table(seeds, {
      seed: (row) => row.seed,
      'pass@1': (row) => pct(row.passAt1),
      'episode-level 95%': (row) => interval(row.episodeLevel),
      'task-level 95%': (row) => interval(row.taskLevel),
    }),
    reading(
      'the episode-level intervals of different seeds barely overlap and suggest real differences; the honest task-level intervals overlap widely.',
    ),
  );
}

export async function report(
  numbers: Numbers,
  { episodes, smallEpisodes }: { episodes: number; smallEpisodes: number },
): Promise<Report> {
  const markdown = blocks(
    selectionSection(numbers, episodes),
    curseSection(numbers, smallEpisodes),
    seedsSection(numbers),
  );
  return { markdown, figures: await selectionFigures(numbers, episodes) };
}
