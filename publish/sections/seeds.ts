/**
 * The report of the chapter's claims across seeds (experiments/seeds.ts): each claim's verdicts,
 * rate, detection rate and standing by docs/CLAIMS.md, the sizes over seeds, the narrowing per
 * task and each seed's trajectories.
 */
import type { ClaimName, SeedClaims, SeedFraction } from '../../analysis/index.ts';
import { CHAPTER_STEPS } from '../../study/index.ts';
import { CLAIMS, SUPPORTED } from '../../analysis/index.ts';
import { taskBootstrapCI } from '../../eval/index.ts';
import { Rng } from '../../lib/rng.ts';
import { bandPanelsSvg, heatmapSvg, intervalChartSvg, intervalPoint } from '../figures.ts';
import { interval, markdownTable, pct, section, signed, table, withInterval } from '../markdown.ts';
import type { Report } from '../markdown.ts';

const p1 = (p: number) => (p < 0.001 ? p.toExponential(0) : p.toFixed(3));

/** What each claim says, as the report's rows name it (docs/CLAIMS.md, section 2). */
export const CLAIM_TEXT: Record<ClaimName, string> = {
  endsBelowBase:
    "17.7's narrowing, the book's reading (headline): a held-out task ends with fewer successes than the base agent's",
  endsBelowBaseTested: "the same, the task's drop significant by the exact paired test at 0.05",
  endsBelowBaseHolm: 'the same with Holm over the held-out tasks (robustness)',
  overtakesBy32: '17.7: the base agent overtakes step 80 at some k <= 32 (mean pass@k over held-out tasks)',
  step20AtOrAboveBase:
    '17.7, "the narrowing comes late" (headline): step 20 at or above the base agent at every k',
  step20AtOrAboveBoth:
    '17.7 read literally: step 20 at or above both the base agent and step 80 at every k (false by construction at k = 1)',
  lateTrainingInstability:
    'late-training instability: a task ends below an earlier step (the most significant of steps 10 to 70, Bonferroni over the 7, Holm over the tasks)',
  fallsDuringTraining:
    'a task falls during training: its steepest drop over every pair of steps (exact paired test, Bonferroni over the 36 pairs, Holm over the tasks)',
};

/** Each claim in a few words: recipe-claims' figure and table, and the report page's verdict-table headers. */
export const CLAIM_SHORT: Record<ClaimName, string> = {
  endsBelowBase: '17.7 a task ends below base (headline)',
  endsBelowBaseTested: '17.7 ends below base, tested',
  endsBelowBaseHolm: '17.7 ends below base, Holm',
  overtakesBy32: '17.7 base overtakes by k 32',
  step20AtOrAboveBase: '17.7 step 20 >= base (headline)',
  step20AtOrAboveBoth: '17.7 step 20 >= both (literal)',
  lateTrainingInstability: 'late-training instability',
  fallsDuringTraining: 'falls during training',
};

/** A rate's standing with what decides it: its detection rate where the claim is not detected. */
export function standingText(claim: Pick<SeedFraction, 'standing' | 'detection'>): string {
  if (claim.standing !== 'not detected') return claim.standing;
  return claim.detection === null
    ? 'not detected (no effect size in the book)'
    : `not detected (power ${pct(claim.detection)})`;
}

const count = (claim: SeedFraction) => `${claim.holds}/${claim.seeds} (${pct(claim.fraction)})`;
const rate = (claim: SeedFraction) =>
  `${interval(claim.interval)}${claim.interval.method === 'exact over seeds' ? ' exact over seeds' : ''}`;
const wilson = (claim: SeedFraction) =>
  `${interval(claim.wilson)}, covers ${pct(claim.wilson.coverageAtRate)} at ${pct(claim.fraction)}`;
const weak = (claim: SeedFraction) =>
  claim.weaklySupported.map((entry) => `${entry.seed} (${entry.support.toFixed(2)})`).join(', ') || 'none';

function claimsSection(numbers: SeedClaims): string {
  const { claims } = numbers;
  return section(
    'The claims (judged by docs/CLAIMS.md)',
    table(CLAIMS, {
      claim: (name) => CLAIM_TEXT[name],
      'holds in seeds': (name) => count(claims[name]),
      'rate, seed and evaluation noise (two-stage 95%)': (name) => rate(claims[name]),
      'Wilson 95% on the count (its exact coverage)': (name) => wilson(claims[name]),
      "detection rate at the book's effect": (name) =>
        claims[name].detection === null ? 'none in the book' : pct(claims[name].detection!),
      standing: (name) => `**${standingText(claims[name])}**`,
      ['seeds with resample support below ' + SUPPORTED]: (name) => weak(claims[name]),
    }),
    `The rate's interval redraws the seeds and, for each, one of its ${numbers.resamples.toLocaleString('en-US')} episode resamples (${numbers.reps.toLocaleString('en-US')} replicates; Davison & Hinkley 1997, section 3.8), so it carries each verdict's evaluation noise, and errs wide; where every resampled verdict is alike it is the exact interval over the seeds. The Wilson interval takes each verdict as exact; its exact coverage at the observed rate is printed beside it. The detection rate is the probability that a seed showing the book's effect (one task at 10 of 64 for the base agent and 3 of 64 at step 80; for the falls, 13 of 64 at step 20) gives the verdict at ${numbers.episodes} episodes per task: a claim fails only where that is at least 0.8, and is otherwise not detected. A seed's resample support is the share of its episode resamples that give its verdict: a bootstrap proportion of a statistic that jumps at a threshold, not the probability that the verdict is right.`,
  );
}

function noiseRows({ noise, seeds }: SeedClaims): string[][] {
  const seedCount = seeds.length;
  return (['step30', 'step80'] as const).flatMap((key) => {
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
  });
}

/** 17.8's figures over seeds, the two winner's curses with their standings. */
function selectionRows({ selection, curse }: SeedClaims): string[][] {
  const rows: Array<[string, keyof SeedClaims['selection'], SeedClaims['curse']['ours']?]> = [
    [
      "17.8: winner's curse, ours: the step picked on the first half of the test episodes, its score there minus on the second half (t 95% over seeds)",
      'winnersCurse',
      curse.ours,
    ],
    [
      "17.8: winner's curse in the book's design: 8-episode-per-task test evaluations each pick one of steps 10 to 80 and the other evaluations score the pick",
      'bookCurse',
      curse.book,
    ],
    ["17.8: winner's curse the other way round (picked on the second half)", 'winnersCurseReverse'],
    [
      "17.8: the test pick's real advantage (its second-half score minus the validation pick's)",
      'realAdvantage',
    ],
    [
      '17.8: test-selection gain (test pick minus validation pick, on the test episodes that picked it; >= 0 by construction)',
      'testSelectionGain',
    ],
  ];
  return rows.map(([label, key, verdict]) => [
    label,
    `${signed(selection[key].estimate)} ${interval(selection[key])}${verdict === undefined ? '' : `: **${verdict.standing}** (power at +0.03: ${pct(verdict.power)})`}`,
  ]);
}

/** 17.5's magnitudes, 17.3's base rho, step 80 over seeds, and the aggregates. */
function valueRows(numbers: SeedClaims): string[][] {
  const { temperature, aggregates, baseRho } = numbers;
  return [
    ...(['hot', 'greedy'] as const).map((key) => [
      `17.5: ${key === 'hot' ? 'temperature 1.3' : 'greedy'} minus the training temperature at step 80 (t 95% over seeds; the book ${temperature[key].book[0] === temperature[key].book[1] ? signed(temperature[key].book[0]) : `${signed(temperature[key].book[0])} to ${signed(temperature[key].book[1])}`})`,
      `${signed(temperature[key].estimate)} ${interval(temperature[key])}: **${temperature[key].standing}**`,
    ]),
    [
      "17.3: the base agent's rho (the chapter's estimator; the book about 0.01)",
      baseRho === null
        ? 'n/a: no seed has one'
        : `mean ${pct(baseRho.mean)} over ${baseRho.seeds} seeds, ${pct(baseRho.min)} to ${pct(baseRho.max)}`,
    ],
    [
      'step-80 held-out pass@1 over seeds',
      `mean ${pct(numbers.step80.mean)}, SD ${pct(numbers.step80.sd)} (chi-square 95% ${interval(numbers.step80.sdInterval)}), ${pct(numbers.step80.min)} to ${pct(numbers.step80.max)}`,
    ],
    ...([0, 20, 80] as const).flatMap((step) => [
      [`mean at step ${step} (t 95% on the seed means)`, withInterval(aggregates[step].mean)],
      [
        `IQM at step ${step} (whole seeds redrawn, 95%; with the tasks redrawn too)`,
        `${withInterval(aggregates[step].iqm)}; ${interval(aggregates[step].iqmTaskBootstrap!)}`,
      ],
    ]),
    ['P(step 80 > step 0) (whole seeds redrawn, 95%)', withInterval(numbers.probabilityOfImprovement)],
  ];
}

function sizesSection(numbers: SeedClaims, coverage: string): string {
  const { aggregates } = numbers;
  return section(
    'Sizes over seeds',
    markdownTable(
      ['quantity', 'across seeds'],
      [...noiseRows(numbers), ...selectionRows(numbers), ...valueRows(numbers)],
    ),
    `The IQM is the mean of the middle half of the ${numbers.perSeed.length * numbers.perSeed[0]!.trajectories.length} seed x task scores: it drops the lowest and the highest quarter. At step 80 the lowest quarter (${numbers.iqmTrimmedLow.scores} scores) is mostly the tasks that collapsed, ${numbers.iqmTrimmedLow.byTask
      .slice(0, 3)
      .map((row) => `\`${row.task}\` ${row.scores}`)
      .join(
        ', ',
      )}, so the IQM (${pct(aggregates[80].iqm.estimate)}) leaves out the failure 17.7 is about, which the mean (${pct(aggregates[80].mean.estimate)}) keeps: read them side by side. A seed is the unit: every interval over seeds x tasks redraws whole seeds (${numbers.reps.toLocaleString('en-US')} replicates) or is a t interval on the seed means.`,
    coverage,
  );
}

function tasksSection(numbers: SeedClaims): string {
  const seedCount = numbers.seeds.length;
  const shown = numbers.perSeed.flatMap(({ seed, trajectories }) =>
    trajectories
      .filter((task) => task.steepest.holmP < 0.05 || task.successes.at(-1)! < task.successes[0]!)
      .map((task) => ({ seed, ...task })),
  );
  return [
    section(
      'Narrowing and falls: seeds per held-out task',
      table(numbers.byTask, {
        task: (row) => row.task,
        'ends below the base agent': (row) => `${row.endsBelowBase}/${seedCount}`,
        'the same, Holm': (row) => `${row.belowBaseHolm}/${seedCount}`,
        'below an earlier step at 80': (row) => `${row.lateTrainingInstability}/${seedCount}`,
        'falls during training': (row) => `${row.fallsDuringTraining}/${seedCount}`,
      }),
    ),
    section(
      'Trajectories',
      `Every task whose steepest drop is significant (every pair of steps, Bonferroni over the 36, Holm over the tasks) or that ends below the base agent: its successes (of ${numbers.episodes}) at steps 0 to 80, its peak, its steepest drop with the adjusted p and the first edit the later checkpoint made most often on it, and step 80 less step 0 with the exact paired test's p.`,
      table(shown, {
        seed: (task) => task.seed,
        task: (task) => task.task,
        'successes, steps 0 to 80': (task) => task.successes.join(' '),
        peak: (task) => `step ${task.peak.step}: ${task.peak.successes}`,
        'steepest drop (adjusted p)': ({ steepest, successes }) =>
          `${steepest.from} -> ${steepest.to}: ${successes[CHAPTER_STEPS.indexOf(steepest.from)]} -> ${successes[CHAPTER_STEPS.indexOf(steepest.to)]} (${p1(steepest.holmP)}${steepest.troughFirstEdit === null ? '' : `; first edit \`${steepest.troughFirstEdit.op}\` ${steepest.troughFirstEdit.episodes}`})`,
        'step 80 - step 0 (p; Holm)': (task) =>
          `${task.successes.at(-1)! - task.successes[0]!} (${p1(task.belowBase.p)}; Holm ${p1(task.belowBase.holmP)})`,
      }),
    ),
  ].join('\n\n');
}

function seedsSection(numbers: SeedClaims): string {
  return section(
    'Each seed',
    "Held-out pass@1 at steps 0, 20 and 80; the first k at which the base agent is above step 80; step 80 greedy and at temperature 1.3; 17.8's winner's curse (ours and the book's design), the test pick's real advantage and the test-selection gain; 17.3's base rho. Then each verdict (y or n) with its resample support.",
    table(numbers.perSeed, {
      seed: (row) => row.seed,
      'step 0': (row) => pct(row.passAt1[0]!),
      'step 20': (row) => pct(row.passAt1[20]!),
      'step 80': (row) => pct(row.passAt1[80]!),
      'overtake k': (row) => row.overtakeK ?? 'none',
      greedy: (row) => pct(row.greedy),
      'T 1.3': (row) => pct(row.hot),
      "winner's curse": (row) => signed(row.selection.winnersCurse),
      "book's design": (row) => signed(row.selection.bookCurse),
      'real advantage': (row) => signed(row.selection.realAdvantage),
      'test-selection gain': (row) => signed(row.selection.testSelectionGain),
      'base rho': (row) => (row.baseRho === null ? 'n/a' : pct(row.baseRho)),
    }),
    markdownTable(
      ['seed', ...CLAIMS],
      numbers.perSeed.map((row) => [
        row.seed,
        ...CLAIMS.map((name) => `${row.verdicts[name] ? 'y' : 'n'} ${row.support[name].toFixed(2)}`),
      ]),
    ),
  );
}

/**
 * Each seed's step-80 pass@1 with its own task-level interval (tasks redrawn, 2,000 replicates, as
 * `tinyagent eval` prints it; stream `figure/seed-intervals/seed-<seed>`, so no number of
 * seeds.json depends on it) beside the mean and IQM over seeds.
 */
function step80Figure(numbers: SeedClaims, seed: number) {
  const { perSeed, aggregates } = numbers;
  const figureRng = new Rng(seed).fork('figure/seed-intervals');
  return intervalChartSvg({
    title: `Step-80 held-out pass@1 of each of ${perSeed.length} seeds (task-level 95%, ${numbers.episodes} episodes per task), and the mean and IQM over seeds (whole seeds redrawn, 95%)`,
    xTitle: '',
    yTitle: 'held-out pass@1',
    points: [
      ...perSeed.map((row) => {
        const interval = taskBootstrapCI(
          { successes: row.trajectories.map((task) => task.successes.at(-1)!), trials: numbers.episodes },
          { rng: figureRng.fork(`seed-${row.seed}`) },
        );
        return intervalPoint(`seed ${row.seed}`, 'seeds', row.passAt1[80]!, interval);
      }),
      ...(['mean', 'iqm'] as const).map((name) => {
        const label = name === 'iqm' ? 'IQM' : 'mean';
        return intervalPoint(label, label, aggregates[80][name].estimate, aggregates[80][name]);
      }),
    ],
  });
}

function profilesFigure(aggregates: SeedClaims['aggregates']) {
  return bandPanelsSvg([
    {
      title:
        'Performance profiles: the share of seed x task scores above tau (whole seeds redrawn, 95% bands)',
      xTitle: 'tau',
      yTitle: 'share of seed x task scores above tau',
      series: ([0, 20, 80] as const).map((step) => ({
        name: `step ${step}`,
        points: aggregates[step].profile!.map(({ tau: x, estimate: y, low, high }) => ({ x, y, low, high })),
      })),
    },
  ]);
}

/** Step-80 minus base successes per task and seed, the tasks below the base agent marked. */
function narrowingFigure(perSeed: SeedClaims['perSeed']) {
  return heatmapSvg({
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
}

export async function report(
  numbers: SeedClaims,
  { study, recipe, coverage, seed }: { study: string; recipe: string; coverage: string; seed: number },
): Promise<Report> {
  const markdown = [
    `Study \`${study}\`: recipe \`${recipe}\`, ${numbers.seeds.length} seeds (${numbers.seeds.join(', ')}), ${numbers.episodes} episodes per held-out task at every chapter step.`,
    claimsSection(numbers),
    sizesSection(numbers, coverage),
    tasksSection(numbers),
    seedsSection(numbers),
  ].join('\n\n');
  const figures = {
    'seeds-step80.svg': await step80Figure(numbers, seed),
    'seeds-profiles.svg': await profilesFigure(numbers.aggregates),
    'seeds-narrowing.svg': await narrowingFigure(numbers.perSeed),
  };
  return { markdown, figures };
}
