import type { NotMeasured, QuotedNumber } from './numbers.ts';

// Where each figure the README and docs quote is measured (test/reported-numbers.test.ts checks
// them). A new figure in a scanned section needs a row here, or a reason in NOT_MEASURED.

const README = 'README.md';
const TRAINING = 'docs/TRAINING.md';
const MODEL = 'docs/MODEL.md';
const GYM = 'docs/GYM.md';
const STUDIES = 'docs/STUDIES.md';
const EXERCISES = 'docs/EXERCISES.md';
const METRICS = 'docs/METRICS.md';
const LOG = 'docs/MEASUREMENTS.md';
const REPRODUCTION = 'docs/REPRODUCTION.md';
const three = { digits: 3 };

/** The sections whose every number must be backed by QUOTED or NOT_MEASURED. */
export const SCANNED = [
  { doc: README, heading: 'What it measures' },
  // The reference sections whose figures moved to docs/MEASUREMENTS.md: none may come back unbacked.
  { doc: MODEL, heading: 'Performance (wasm)' },
  { doc: TRAINING, heading: 'Two cores, and length buckets' },
  { doc: GYM, heading: '3. Running code' },
  { doc: STUDIES, heading: 'How long it takes' },
] as const;

const one = { digits: 1 };
const whole = { digits: 0, grouped: true };

/** A row of the table: `text` at `path` in `results/<file>`, quoted in `docs` inside `quote`. */
function at(
  file: string,
  path: string,
  text: string,
  quote: string,
  docs: readonly string[],
  format: QuotedNumber['format'],
  pick?: QuotedNumber['pick'],
): QuotedNumber {
  return { file, path, text, quote, docs, format, ...(pick === undefined ? {} : { pick }) };
}

/** The seed table's rows in docs/TRAINING.md, each quoted whole. */
const SEED_ROWS = [
  '| 0 | 0.191, 3 to 10 | **0.831** | 27 28 31 31 31 31 30 18 32 7 | `bigger_half` 7 (`fix_off_by_one` 25, `swap_min_max` 7) |',
  '| 1 | 0.172, 2 to 9 | **0.853** | 28 28 24 28 31 29 32 11 30 32 | `has_text` 11 (`fix_comparison` 19, `remove_negation` 11) |',
  '| 2 | 0.184, 4 to 8 | **0.875** | 10 29 30 30 30 30 29 28 32 32 | `speed` 10 (`swap_min_max` 19, `add_zero_guard` 10) |',
  '| 3 | 0.191, 2 to 11 | **0.950** | 29 29 31 30 31 31 28 31 32 32 | none |',
];

/** The canary row of a policy under a harness, in the order gym/canary.ts plays them. */
const canary = (row: number) => `results[${row}].meanReward`;

export const QUOTED: QuotedNumber[] = [
  // npm run train -- --seed 0 --out results/train.json (section run)
  at('train.json', 'run.machine.cpus', '2', 'this machine: 2 cores', [README], {}),
  at('train.json', 'run.seconds.total', '71', '`npm run train`: 71 s', [README], whole),
  at(
    'train.json',
    'run.machine.loadAverage.start',
    '1.1',
    'a load average of 1.1 on the 2 cores',
    [README],
    one,
  ),
  at('train.json', 'run.seconds.bc', '10', 'behaviour cloning 10 s', [README], whole),
  at('train.json', 'run.seconds.rollouts', '15', 'rollouts 15 s', [README], whole),
  at('train.json', 'run.seconds.updates', '46', 'updates 46 s', [README], whole),
  at('train.json', 'run.parameterCount', '157,437', '157,437 parameters', [README], whole),
  at('train.json', 'run.parameterCount', '157,437', '157,437', [MODEL], whole),
  // npm run ex:3 (2,000 simulated evaluations)
  at(
    'ex-3.json',
    'numbers.calibration.evals',
    '2,000',
    'Calibration, 2,000 simulated evaluations',
    [EXERCISES],
    whole,
  ),
  at('ex-3.json', 'numbers.calibration.bayes.coverage', '0.949', '**0.949 ± 0.005**', [EXERCISES], three),
  at('ex-3.json', 'numbers.calibration.bayes.se', '0.005', '**0.949 ± 0.005**', [EXERCISES], three),
  at('ex-3.json', 'numbers.calibration.bootstrap.coverage', '0.920', '**0.920 ± 0.006**', [EXERCISES], three),
  at('ex-3.json', 'numbers.calibration.bootstrap.se', '0.006', '**0.920 ± 0.006**', [EXERCISES], three),
  // npm run ex:6
  at('ex-6.json', 'numbers.shared.predictedSE', '0.0193', '| 0.0196 ± 0.0032 | 0.0193 |', [EXERCISES], {
    digits: 4,
  }),
  at('ex-6.json', 'numbers.separate.predictedSE', '0.0219', '| 0.0182 ± 0.0030 | 0.0219 |', [EXERCISES], {
    digits: 4,
  }),
  at(
    'ex-6.json',
    'numbers.varianceRatioTest.p',
    '0.73',
    'Pitman-Morgan test of the two variances gives **p = 0.73**',
    [EXERCISES],
    { digits: 2 },
  ),
  at(
    'ex-6.json',
    'numbers.separate.correlationP',
    '0.383',
    'a correlation of 0.21 with p = 0.383',
    [EXERCISES],
    three,
  ),
  at(
    'ex-6.json',
    'numbers.independence.correlation',
    '0.034',
    'correlate **0.034** (p =',
    [EXERCISES],
    three,
  ),
  at('ex-6.json', 'numbers.independence.repetitions', '200', '0.63) over 200 repetitions', [EXERCISES], {}),
  // npm run ex:7
  at(
    'ex-7.json',
    'numbers.correlatedSelection.correlation',
    '0.19',
    '(0.19, read from the committed',
    [EXERCISES],
    { digits: 2 },
  ),
  at('ex-7.json', 'numbers.correlatedSelection.inflation', '0.0233', 'it is **0.0233**', [EXERCISES], {
    digits: 4,
  }),
  // npm run exp:coverage (docs/METRICS.md quotes coverage ± its MC SE, observed world [0] then fitted [1])
  ...(
    [
      [0, 0, '0.951', '0.005'],
      [0, 1, '0.947', '0.005'],
      [1, 0, '0.957', '0.005'],
      [1, 1, '0.959', '0.004'],
      [2, 0, '0.949', '0.005'],
      [2, 1, '0.949', '0.005'],
      [19, 0, '0.938', '0.005'],
      [19, 1, '0.953', '0.005'],
      [21, 0, '0.946', '0.005'],
      [21, 1, '0.944', '0.005'],
      [26, 0, '0.933', '0.006'],
      [26, 1, '0.944', '0.005'],
      [6, 0, '0.940', '0.005'],
      [6, 1, '0.950', '0.005'],
      [4, 0, '0.783', '0.009'],
      [5, 0, '0.846', '0.008'],
      [4, 1, '0.945', '0.005'],
      [5, 1, '0.955', '0.005'],
      [7, 0, '0.840', '0.008'],
      [7, 1, '0.893', '0.007'],
      [9, 0, '0.917', '0.006'],
      [9, 1, '0.918', '0.006'],
      [18, 0, '0.928', '0.006'],
      [22, 0, '0.763', '0.010'],
      [22, 1, '0.783', '0.009'],
      [25, 0, '0.826', '0.008'],
      [25, 1, '0.899', '0.007'],
      [23, 0, '0.972', '0.004'],
      [24, 0, '0.976', '0.003'],
    ] as const
  ).flatMap(([row, world, coverage, se]) => [
    at(
      'coverage.json',
      `numbers.rows[${row}].worlds[${world}].coverage`,
      coverage,
      `${coverage} ± ${se}`,
      [METRICS],
      three,
    ),
    at(
      'coverage.json',
      `numbers.rows[${row}].worlds[${world}].se`,
      se,
      `${coverage} ± ${se}`,
      [METRICS],
      three,
    ),
  ]),
  at(
    'coverage.json',
    'numbers.rows[23].worlds[0].exact',
    '0.432',
    'where 0.432 of the samples fall back',
    [METRICS],
    three,
  ),
  at(
    'coverage.json',
    'numbers.wilson[0].lowest.coverage',
    '0.838',
    'still dips to 0.838 next to a rate of 1',
    [METRICS],
    three,
  ),
  at('coverage.json', 'numbers.simulations', '2,000', '2,000 simulations per world', [METRICS], whole),
  // tinyagent study compare studies/default-16 studies/entropy-0-8 --out results/study-compare-entropy.json
  ...(
    [
      ['comparison.paired.difference', '-0.044', 'B - A = -0.044 on the shared seeds (paired)'],
      ['comparison.paired.low', '-0.147', 't 95% [-0.147, 0.059] (df 7)'],
      ['comparison.paired.high', '0.059', 't 95% [-0.147, 0.059] (df 7)'],
      ['comparison.difference', '-0.017', 'B - A = -0.017 over all seeds (unpaired)'],
    ] as const
  ).map(([path, text, quote]) => at('study-compare-entropy.json', path, text, quote, [STUDIES], three)),
  at(
    'study-compare-entropy.json',
    'comparison.seedsNeeded.exactT',
    '421',
    'power 0.8: 421 (t test, exact; the normal approximation: 420)',
    [STUDIES],
    {},
  ),
  at(
    'study-compare-entropy.json',
    'comparison.seedsNeeded.normal',
    '420',
    'power 0.8: 421 (t test, exact; the normal approximation: 420)',
    [STUDIES],
    {},
  ),
  at(
    'study-compare-entropy.json',
    'comparison.seedsNeeded.unequalVariances',
    '430',
    '430 with unequal variances',
    [STUDIES],
    {},
  ),
  // npm run exp:seeds (the committed study studies/default-16)
  at('seeds.json', 'numbers.step80.mean', '0.845', 'pass@1 mean 0.845', [README], three),
  at('seeds.json', 'numbers.step80.sd', '0.085', '0.085, 0.716 to 0.966', [README], three),
  at('seeds.json', 'numbers.step80.min', '0.716', '0.085, 0.716 to 0.966', [README], three),
  at('seeds.json', 'numbers.step80.max', '0.966', '0.716 to 0.966', [README], three),
  at('seeds.json', 'numbers.claims.endsBelowBase.holds', '8', 'shows in 8 of the 16 seeds', [README], {}),
  at('seeds.json', 'numbers.claims.endsBelowBase.seeds', '16', 'shows in 8 of the 16 seeds', [README], {}),
  at(
    'seeds.json',
    'numbers.claims.endsBelowBase.interval.low',
    '0.250',
    'two-stage 95% [0.250, 0.750]',
    [README],
    three,
  ),
  at(
    'seeds.json',
    'numbers.claims.endsBelowBase.interval.high',
    '0.750',
    'two-stage 95% [0.250, 0.750]',
    [README],
    three,
  ),
  at(
    'seeds.json',
    'numbers.claims.overtakesBy32.seeds',
    '16',
    'the 16 seeds of the default recipe',
    [README],
    {},
  ),
  at(
    'seeds.json',
    'numbers.noise.step80.training.estimate',
    '0.085',
    'the training-noise SD across 16 seeds is 0.085',
    [TRAINING],
    three,
  ),
  // npm run exp:seeds, as docs/STUDIES.md counts the claims
  ...(
    [
      ['endsBelowBase.holds', '8', '8 of 16 seeds, two-stage 95% [0.250,'],
      ['endsBelowBase.detection', '0.976', 'with probability 0.976'],
      ['endsBelowBaseTested.holds', '6', 'at 0.05: 6 of 16'],
      ['endsBelowBaseTested.detection', '0.557', 'effect 0.557'],
      ['endsBelowBaseHolm.holds', '4', 'robustness line: 4 of 16'],
      ['endsBelowBaseHolm.detection', '0.188', '(detection 0.188'],
      ['step20AtOrAboveBase.holds', '5', 'at every k, in 5 of 16 seeds'],
      ['lateTrainingInstability.holds', '11', 'base agent: 11 of 16 seeds'],
      ['fallsDuringTraining.holds', '14', 'from the same counts can beat: 14 of 16 seeds'],
      ['overtakesBy32.holds', '5', 'k <= 32: 5 of 16 seeds'],
    ] as const
  ).map(([path, text, quote]) =>
    at(
      'seeds.json',
      `numbers.claims.${path}`,
      text,
      quote,
      [STUDIES],
      path.endsWith('detection') ? three : {},
    ),
  ),
  at('seeds.json', 'numbers.resamples', '1,000', 'resampled 1,000 times', [STUDIES], whole),
  at('seeds.json', 'numbers.reps', '50,000', 'from 50,000 replicates', [STUDIES], whole),
  ...(
    [
      ['perSeed[0].trajectories[9].successes[0]', '11', '`bigger_half` rises from 11 to 63 of'],
      ['perSeed[0].trajectories[9].successes[5]', '63', '`bigger_half` rises from 11 to 63 of'],
      ['perSeed[0].trajectories[9].successes[8]', '12', 'falls to 12 at step 80'],
      ['perSeed[0].trajectories[9].steepest.troughFirstEdit.episodes', '50', 'first edit in 50 of 64'],
      ['perSeed[0].trajectories[0].successes[0]', '9', '`speed` rises from 9 to 61 at step 80'],
      ['perSeed[0].trajectories[0].successes[8]', '61', '`speed` rises from 9 to 61 at step 80'],
    ] as const
  ).map(([path, text, quote]) => at('seeds.json', `numbers.${path}`, text, quote, [STUDIES], {})),
  ...(
    [
      ['selection.winnersCurse.estimate', '0.018', '(+0.018 [0.000, 0.037], holds, its'],
      ['selection.winnersCurse.low', '0.000', '(+0.018 [0.000, 0.037], holds, its'],
      ['selection.winnersCurse.high', '0.037', '(+0.018 [0.000, 0.037], holds, its'],
      ['curse.ours.power', '0.906', '+0.03 0.906'],
      ['selection.bookCurse.estimate', '0.025', '(+0.025 [0.016, 0.033], holds)'],
      ['selection.bookCurse.low', '0.016', '(+0.025 [0.016, 0.033], holds)'],
      ['selection.bookCurse.high', '0.033', '(+0.025 [0.016, 0.033], holds)'],
      ['temperature.hot.estimate', '-0.139', '-0.139 [-0.166, -0.113] against -0.10'],
      ['temperature.hot.low', '-0.166', '-0.139 [-0.166, -0.113] against -0.10'],
      ['temperature.hot.high', '-0.113', '-0.139 [-0.166, -0.113] against -0.10'],
      ['temperature.greedy.estimate', '0.040', '+0.040 [0.028, 0.052] against +0.03'],
      ['temperature.greedy.low', '0.028', '+0.040 [0.028, 0.052] against +0.03'],
      ['temperature.greedy.high', '0.052', '+0.040 [0.028, 0.052] against +0.03'],
      ['baseRho.mean', '0.006', 'averages 0.006 over the 16 seeds (-0.012 to 0.027)'],
      ['baseRho.min', '-0.012', 'averages 0.006 over the 16 seeds (-0.012 to 0.027)'],
      ['baseRho.max', '0.027', 'averages 0.006 over the 16 seeds (-0.012 to 0.027)'],
    ] as const
  ).map(([path, text, quote]) => at('seeds.json', `numbers.${path}`, text, quote, [STUDIES], three)),
  // npm run train -- --seeds 0,1,2,3 --out results/train.json (section seeds)
  at(
    'train.json',
    'seeds.evaluation.episodesPerTask',
    '32',
    '32 episodes per task, evaluation seed 21',
    [TRAINING],
    {},
  ),
  at('train.json', 'seeds.evaluation.seed', '21', '32 episodes per task, evaluation seed 21', [TRAINING], {}),
  // The seed table and the run in docs/TRAINING.md
  at('train.json', 'seeds.rows[0].base.passAt1', '0.191', SEED_ROWS[0]!, [TRAINING], three),
  at('train.json', 'seeds.rows[0].base.successes[*]', '3', SEED_ROWS[0]!, [TRAINING], {}, 'min'),
  at('train.json', 'seeds.rows[0].base.successes[*]', '10', SEED_ROWS[0]!, [TRAINING], {}, 'max'),
  at('train.json', 'seeds.rows[0].passAt1', '0.831', SEED_ROWS[0]!, [TRAINING], three),
  at(
    'train.json',
    'seeds.rows[0].successes[*]',
    '27 28 31 31 31 31 30 18 32 7',
    SEED_ROWS[0]!,
    [TRAINING],
    {},
    'join',
  ),
  at('train.json', 'seeds.rows[0].successes.bigger_half', '7', SEED_ROWS[0]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[0].firstEdit.bigger_half.fix_off_by_one', '25', SEED_ROWS[0]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[0].firstEdit.bigger_half.swap_min_max', '7', SEED_ROWS[0]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[1].base.passAt1', '0.172', SEED_ROWS[1]!, [TRAINING], three),
  at('train.json', 'seeds.rows[1].base.successes[*]', '2', SEED_ROWS[1]!, [TRAINING], {}, 'min'),
  at('train.json', 'seeds.rows[1].base.successes[*]', '9', SEED_ROWS[1]!, [TRAINING], {}, 'max'),
  at('train.json', 'seeds.rows[1].passAt1', '0.853', SEED_ROWS[1]!, [TRAINING], three),
  at(
    'train.json',
    'seeds.rows[1].successes[*]',
    '28 28 24 28 31 29 32 11 30 32',
    SEED_ROWS[1]!,
    [TRAINING],
    {},
    'join',
  ),
  at('train.json', 'seeds.rows[1].successes.has_text', '11', SEED_ROWS[1]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[1].firstEdit.has_text.fix_comparison', '19', SEED_ROWS[1]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[1].firstEdit.has_text.remove_negation', '11', SEED_ROWS[1]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[2].base.passAt1', '0.184', SEED_ROWS[2]!, [TRAINING], three),
  at('train.json', 'seeds.rows[2].base.successes[*]', '4', SEED_ROWS[2]!, [TRAINING], {}, 'min'),
  at('train.json', 'seeds.rows[2].base.successes[*]', '8', SEED_ROWS[2]!, [TRAINING], {}, 'max'),
  at('train.json', 'seeds.rows[2].passAt1', '0.875', SEED_ROWS[2]!, [TRAINING], three),
  at(
    'train.json',
    'seeds.rows[2].successes[*]',
    '10 29 30 30 30 30 29 28 32 32',
    SEED_ROWS[2]!,
    [TRAINING],
    {},
    'join',
  ),
  at('train.json', 'seeds.rows[2].successes.speed', '10', SEED_ROWS[2]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[2].firstEdit.speed.swap_min_max', '19', SEED_ROWS[2]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[2].firstEdit.speed.add_zero_guard', '10', SEED_ROWS[2]!, [TRAINING], {}),
  at('train.json', 'seeds.rows[3].base.passAt1', '0.191', SEED_ROWS[3]!, [TRAINING], three),
  at('train.json', 'seeds.rows[3].base.successes[*]', '2', SEED_ROWS[3]!, [TRAINING], {}, 'min'),
  at('train.json', 'seeds.rows[3].base.successes[*]', '11', SEED_ROWS[3]!, [TRAINING], {}, 'max'),
  at('train.json', 'seeds.rows[3].passAt1', '0.950', SEED_ROWS[3]!, [TRAINING], three),
  at(
    'train.json',
    'seeds.rows[3].successes[*]',
    '29 29 31 30 31 31 28 31 32 32',
    SEED_ROWS[3]!,
    [TRAINING],
    {},
    'join',
  ),
  at('train.json', 'seeds.spread', '0.119', 'Spread (max - min) 0.119; mean 0.877', [TRAINING], three),
  at('train.json', 'seeds.mean', '0.877', 'Spread (max - min) 0.119; mean 0.877', [TRAINING], three),
  at('train.json', 'seeds.base.min', '0.172', '(0.172 to 0.191)', [TRAINING], three),
  at('train.json', 'seeds.base.max', '0.191', '(0.172 to 0.191)', [TRAINING], three),
  at('train.json', 'seeds.rows[0].passAt1', '0.831', '(0.831, 0.853,', [TRAINING], three),
  at('train.json', 'seeds.rows[1].passAt1', '0.853', '(0.831, 0.853,', [TRAINING], three),
  at('train.json', 'seeds.rows[2].passAt1', '0.875', '0.875, 0.950)', [TRAINING], three),
  at('train.json', 'seeds.rows[3].passAt1', '0.950', '0.875, 0.950)', [TRAINING], three),
  at(
    '17.4.json',
    'numbers.noise[1].seedMeans[0]',
    '0.848',
    '(0.848, 0.867, 0.867, 0.947)',
    [TRAINING],
    three,
  ),
  at(
    '17.4.json',
    'numbers.noise[1].seedMeans[1]',
    '0.867',
    '(0.848, 0.867, 0.867, 0.947)',
    [TRAINING],
    three,
  ),
  at(
    '17.4.json',
    'numbers.noise[1].seedMeans[2]',
    '0.867',
    '(0.848, 0.867, 0.867, 0.947)',
    [TRAINING],
    three,
  ),
  at(
    '17.4.json',
    'numbers.noise[1].seedMeans[3]',
    '0.947',
    '(0.848, 0.867, 0.867, 0.947)',
    [TRAINING],
    three,
  ),
  at(
    '17.4.json',
    'numbers.noise[1].maxRepeatDifference',
    '0.028',
    'within the 0.028 by which',
    [TRAINING],
    three,
  ),
  at(
    'train.json',
    'seeds.rows[0].base.successes.bigger_half',
    '5',
    '`bigger_half` goes from 5 to 7 of 32',
    [TRAINING],
    {},
  ),
  at(
    'train.json',
    'seeds.rows[0].successes.bigger_half',
    '7',
    '`bigger_half` goes from 5 to 7 of 32',
    [TRAINING],
    {},
  ),
  at(
    'train.json',
    'seeds.rows[0].firstEdit.bigger_half.fix_off_by_one',
    '25',
    '`fix_off_by_one` 25 times',
    [TRAINING],
    {},
  ),
  at(
    'train.json',
    'seeds.rows[0].firstEdit.bigger_half.swap_min_max',
    '7',
    'the repair `swap_min_max` 7',
    [TRAINING],
    {},
  ),
  at(
    'train.json',
    'seeds.rows[1].base.successes.has_text',
    '5',
    '`has_text` goes from 5 to 11',
    [TRAINING],
    {},
  ),
  at('train.json', 'seeds.rows[1].successes.has_text', '11', '`has_text` goes from 5 to 11', [TRAINING], {}),
  at(
    'train.json',
    'seeds.rows[1].firstEdit.has_text.fix_comparison',
    '19',
    '`fix_comparison` 19 times',
    [TRAINING],
    {},
  ),
  at(
    'train.json',
    'seeds.rows[1].firstEdit.has_text.remove_negation',
    '11',
    '`remove_negation` 11 (its',
    [TRAINING],
    {},
  ),
  at('train.json', 'seeds.rows[2].base.successes.speed', '8', '`speed` goes from 8 to 10', [TRAINING], {}),
  at('train.json', 'seeds.rows[2].successes.speed', '10', '`speed` goes from 8 to 10', [TRAINING], {}),
  at(
    'train.json',
    'seeds.rows[2].firstEdit.speed.swap_min_max',
    '19',
    '`swap_min_max` 19 times',
    [TRAINING],
    {},
  ),
  at(
    'train.json',
    'seeds.rows[2].firstEdit.speed.add_zero_guard',
    '10',
    'the repair `add_zero_guard` 10',
    [TRAINING],
    {},
  ),
  at('train.json', 'seeds.rows[3].successes[*]', '28', 'at least 28 times in 32', [TRAINING], {}, 'min'),
  at('train.json', 'run.parameterCount', '157,437', 'count (157,437)', [TRAINING], whole),
  // npm run canary -- --out results/canary.json
  ...[0, 4, 8].map((row) => at('canary.json', canary(row), '1.0', 'oracle 1.0 everywhere', [README], one)),
  ...[1, 5, 9].map((row) => at('canary.json', canary(row), '0.2', 'blind 0.2', [README], one)),
  at('canary.json', canary(11), '1.0', 'gamer 1.0 under public-test reward', [README], one),
  at('canary.json', canary(3), '0.0', '0.0 under hidden tests', [README], one),
  at('canary.json', canary(7), '0.0', '0.0 under hidden tests', [README], one),
  // The canary rows docs/GYM.md quotes (its table is what the gym is built to give, gym/canary.ts)
  at('canary.json', canary(2), '0.20', '(0.20 vs 0.60', [GYM], { digits: 2 }),
  at('canary.json', canary(6), '0.60', '(0.20 vs 0.60', [GYM], { digits: 2 }),
  at('canary.json', canary(11), '1.00', '(1.00 vs 0.00)', [GYM], { digits: 2 }),
  at('canary.json', canary(3), '0.00', '(1.00 vs 0.00)', [GYM], { digits: 2 }),
  // npm run bench -- --out results/bench.json, as docs/MEASUREMENTS.md's generated tables print it
  // (test/measurement-log.test.ts checks the whole table; these tie the log to the README's figures)
  ...(
    [
      ['figures.gym.gym/warmEpisodesPerSecond', '32,404', 'scripted episodes, warm', '/s'],
      ['figures.gym.gym/coldEpisodesPerSecond', '8,353', 'scripted episodes, cold', '/s'],
      ['figures.train.trainStepMsOneThread', '324', 'training step, one thread', ' ms'],
      ['figures.train.trainStepMsTwoThreads', '186', 'training step, two threads', ' ms'],
      ['figures.train.rolloutEpisodesPerSecondOneThread', '739', 'rollouts, one thread', '/s'],
      ['figures.train.rolloutEpisodesPerSecondTwoThreads', '1,068', 'rollouts, two threads', '/s'],
      ['figures.train.torch.stepMs', '262', 'PyTorch step, two threads', ' ms'],
      ['figures.train.torch.stepMsOneThread', '211', 'PyTorch step, one thread', ' ms'],
      ['figures.train.torch.oursStepMsTwoThreads', '225', 'our step, two threads, same turns', ' ms'],
    ] as const
  ).map(([path, text, label, unit]) =>
    at(
      'bench.json',
      path,
      text,
      `| ${label} | ${text}${unit} | \`${path.split('.').pop()!}\` |`,
      [LOG],
      whole,
    ),
  ),
  ...(
    [
      ['figures.train.trainStepGflopsOneThread', '20.5', 'training step, one thread', ' GFLOP/s'],
      ['figures.train.trainStepGflopsTwoThreads', '35.7', 'training step, two threads', ' GFLOP/s'],
      [
        'figures.train.grpoStepSecondsOneThread',
        '1.56',
        'GRPO step (160 rollouts, 4 updates), one thread',
        ' s',
      ],
      ['figures.train.ownProductsSpeedup', '3.11', "our products over tfjs's", 'x'],
      ['figures.train.torch.ratioToFaster', '1.07', "ours / PyTorch's faster thread count", 'x'],
    ] as const
  ).map(([path, text, label, unit]) =>
    at('bench.json', path, text, `| ${label} | ${text}${unit} | \`${path.split('.').pop()!}\` |`, [LOG], {
      significant: 3,
    }),
  ),
  at(
    'bench.json',
    'figures.train.grpoStepSecondsTwoThreads',
    '0.972',
    '| GRPO step, two threads | 0.972 s |',
    [LOG],
    {
      digits: 3,
    },
  ),
  at(
    'bench.json',
    'figures.train.torch.ratio',
    '0.860',
    '| ours / PyTorch on two threads | 0.860x |',
    [LOG],
    {
      digits: 3,
    },
  ),
  at(
    'bench.json',
    'figures.eval.taskBootstrapSeconds',
    '0.0470',
    '| task bootstrap, 10,000 replicates, 500 tasks | 0.0470 s |',
    [LOG],
    { digits: 4 },
  ),
  at('bench.json', 'machine.loadAverage.start', '0.72', 'load average 0.720 at the start', [LOG], {
    digits: 2,
  }),
  at('train.json', 'run.seconds.total', '71.4', '| total | 71.4 s | `run.seconds.total` |', [LOG], one),
  at('train.json', 'run.seconds.updates', '45.6', '| updates | 45.6 s | `run.seconds.updates` |', [LOG], one),
  at('bench.json', 'machine.loadAverage.start', '0.7', 'a load average of 0.7 on the 2 cores', [README], one),
  at('bench.json', 'machine.cpus', '2', 'a load average of 0.7 on the 2 cores', [README], {}),
  at(
    'bench.json',
    'figures.gym.gym/warmEpisodesPerSecond',
    '32,400',
    '32,400 scripted env episodes/s warm',
    [README],
    {
      significant: 3,
      grouped: true,
    },
  ),
  at('bench.json', 'figures.train.trainStepMsTwoThreads', '186', 'in 186 ms on two threads', [README], whole),
  at('bench.json', 'figures.train.torch.oursStepMsTwoThreads', '225', '225 ms in turns', [README], whole),
  at('bench.json', 'figures.train.torch.stepMs', '262', "PyTorch's 262 ms", [README], whole),
  // 17.1: the two agents.
  { text: '0.175', docs: [README], file: '17.1.json', path: 'numbers[0].passAt1', format: three },
  {
    text: '0.834',
    quote: '`step-80` 0.834',
    docs: [README],
    file: '17.1.json',
    path: 'numbers[1].passAt1',
    format: three,
  },
  // 17.5
  { text: '0.741', docs: [README], file: '17.5.json', path: 'numbers.rows[10].passAt1', format: three },
  {
    text: '0.875',
    quote: '0.875 (unlimited edits)',
    docs: [README],
    file: '17.5.json',
    path: 'numbers.rows[15].passAt1',
    format: three,
  },
];

/** Numbers in a scanned section that are settings or the book's figures, each with its phrase. */
const shape = 'a shape or size of the code, not a measurement';
const setting = 'a setting of the code or the bench';

export const NOT_MEASURED: Record<string, NotMeasured[]> = {
  [MODEL]: [
    { quote: 'unbatched 2-D matMuls', why: shape },
    { quote: 'rank-5 slices', why: shape },
    { quote: 'with plain 2-D products', why: shape },
    { quote: 'three 2-D products', why: shape },
    { quote: 'a rank-5 slice of the [B·T, 3C] activation', why: shape },
    { quote: 'rank-4 transposes', why: shape },
    { quote: '4 rows × 8 columns of accumulators', why: "the kernel's tile" },
    { quote: 'the bias (or 0)', why: "the accumulators' start" },
    { quote: "a 2-D product first copies B's 8-column strips", why: "the kernel's walk" },
    { quote: '256 bytes apart for 64 columns', why: 'the layout of a float32 row of the model' },
    { quote: 'k in blocks of 64', why: "the kernel's walk" },
    { quote: 'k in blocks of 256', why: "the kernel's walk" },
    { quote: 'two transposes per layer remain', why: 'counted in the code' },
    { quote: 'sees key 0', why: 'the padding rule' },
    { quote: 'unrolled by 2 or 4, and 6 × 8 tiles', why: 'the alternatives tried' },
    { quote: 'the 16 SIMD registers', why: 'the WebAssembly SIMD register file' },
    { quote: 'the training step of 64 × 96 tokens', why: "the train bench's workload" },
    { quote: 'its rollouts and 4 updates', why: 'the default GRPO step' },
    { quote: 'those 4 updates on one thread', why: 'the default GRPO step' },
    { quote: '2 × alone / beside', why: "the ceiling's formula" },
    { quote: 'the 4 updates run slower', why: 'the default GRPO step' },
    { quote: 'can reach 2 (the ceiling', why: 'two cores' },
    { quote: '128-bit WebAssembly SIMD', why: "WebAssembly's SIMD width" },
    { quote: 'Node 20', why: 'the Node version' },
    { quote: 'the 1.8x target', why: 'a target, not a measurement' },
    { quote: 'same 64 × 96 batch', why: "the train bench's workload" },
    { quote: 'clip to norm 1', why: setting },
    { quote: '(exit 1)', why: 'an exit code' },
    { quote: 'Debian 12 ships PyTorch 1.13', why: 'versions' },
    { quote: 'load average under 2', why: 'when to remeasure' },
    {
      quote: 'FLOPs per step = 6·P·N + 12·L·T·d·N with N = 64·95 predicted positions, T = 95',
      why: 'the formula and the workload',
    },
    { quote: 'step has 64 rows of one length', why: "the train bench's workload" },
    { quote: 'one thread, 64 × 96, its rows', why: "the model bench's workload" },
  ],
  [TRAINING]: [
    { quote: 'lockstep batches of at most 160', why: 'ROLLOUT_BATCH' },
    { quote: "about 128 tokens' worth of dispatch", why: 'BUCKET_COST' },
    { quote: 'the padded batch to 1e-5 relative', why: "the test's tolerance" },
    { quote: 'drift apart over 80 steps', why: 'the default run length' },
    { quote: 'seed 0 trained with', why: 'a seed' },
    { quote: 'ends at another step-80', why: 'a checkpoint' },
  ],
  [GYM]: [
    { quote: 'first gets 50 ms of wall-clock time', why: 'SANDBOX_LIMITS.firstLimitMs' },
    { quote: 'it is run again with 2 s', why: 'SANDBOX_LIMITS.confirmLimitMs' },
    { quote: 'fails after about 2.05 s per test call', why: 'the two limits added' },
    { quote: 'a single 50 ms limit', why: 'the old setting' },
    { quote: 'scores exactly 1.0 in 20 cold runs', why: "test/gym-load.test.ts's design" },
    { quote: 'the six ops to the 30 task sources', why: 'the task set' },
    { quote: 'within a default episode (480 of them)', why: 'counted by test/gym-sandbox.test.ts' },
    { quote: 'on all 30 tasks', why: 'the task set' },
    { quote: 'all 30 names of a task', why: 'the task set' },
    { quote: '## 3. Running code', why: 'the heading' },
  ],
  [STUDIES]: [
    { quote: 'on 2 cores, trainings run two at a time', why: 'the machine the runner plans for' },
    { quote: 'On M machines of 2 cores each', why: 'the machine the runner plans for' },
    { quote: 'it runs a 4-seed smoke study of every chapter step, 56 jobs', why: "the study bench's plan" },
    { quote: 'over the 2 workers (the target: within 10%)', why: "the bench's target" },
    { quote: 'the target: under 2 s', why: "the bench's target" },
  ],
  [README]: [
    { quote: '(10 tasks x 32 episodes, hidden tests', why: 'the evaluation 17.1 runs' },
    { quote: 'the book: 0.144 and 0.819', why: "the book's figures" },
    { quote: 'step-80 held-out', why: 'a checkpoint' },
    { quote: '(temperature 1.3)', why: 'a harness setting' },
    { quote: 'the target is 20,000', why: "the gym bench's target (bench/gym.ts)" },
    { quote: 'a training step of 64 x 96 tokens', why: "the train bench's workload" },
  ],
  [REPRODUCTION]: [
    {
      quote: 'Every evaluation there is 640 episodes',
      why: "the study's design: 10 held-out tasks x 64 episodes",
    },
  ],
  [EXERCISES]: [
    { quote: 'Hinkley 1970', why: 'a citation' },
    { quote: 'Hesterberg 1995', why: 'a citation' },
    {
      quote: '0.46478 and P(mu < 0.4) = 0.29673',
      why: "scipy's grid posterior, the outside reference test/exercises-stats.test.ts checks against",
    },
    { quote: 'from 41.0% to 43.4%', why: "the exercise's reported case, the tool's input" },
    { quote: '0.024/(1.960 + 0.842)', why: 'the normal quantiles of a two-sided 5% test with power 0.8' },
  ],
};

/** The docs whose every figure must be held by a committed results file or backed by a phrase. */
export const WHOLE_DOCS = [REPRODUCTION, EXERCISES] as const;
