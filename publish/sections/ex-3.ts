/** The report of exercise 3 (experiments/ex-3.ts): a hierarchical beta-binomial interval beside the task bootstrap. */
import type { NumbersEx3 as Numbers } from '../../analysis/index.ts';
import { intervalChartSvg, intervalPoint } from '../figures.ts';
import { blocks, interval, pct, reading, section, table, withSE, type Report } from '../markdown.ts';

function countsSection(agents: Numbers['agents']): string {
  return section(
    'On the 17.1 counts: the 95% credible interval of the population mean beside the task bootstrap',
    table(agents, {
      step: (row) => row.step,
      'pass@1': (row) => pct(row.passAt1),
      'counts per task': (row) => row.counts.join(' '),
      'task bootstrap': (row) => interval(row.bootstrap),
      'width ': (row) => pct(row.bootstrap.high - row.bootstrap.low),
      'posterior mean': (row) => pct(row.bayes.mean),
      'credible interval': (row) => interval(row.bayes),
      width: (row) => pct(row.bayes.high - row.bayes.low),
      'effective draws': (row) => Math.round(row.bayes.effectiveDraws),
    }),
  );
}

/** Both intervals' coverage in simulation, and at the trained agent's own task rates (`coverage`, what exp:coverage measured). */
function calibrationSection({ calibration, populationMean }: Numbers, coverage: string): string {
  return section(
    `Calibration: coverage of the population mean ${pct(populationMean)} under the 17.3 setup (Beta(0.4, 0.3), 10 tasks, 32 episodes, ${calibration.evals} evaluations)`,
    table(
      [
        ['hierarchical beta-binomial, 95% credible interval', calibration.bayes],
        ['task bootstrap, 95% percentile interval', calibration.bootstrap],
      ] as const,
      {
        interval: (row) => row[0],
        'coverage ± MC SE': (row) => withSE(row[1].coverage, row[1].se),
        'mean width': (row) => pct(row[1].meanWidth),
      },
    ),
    reading(
      `the credible interval covers the population mean in ${pct(calibration.bayes.coverage)} of the simulated evaluations, the task bootstrap in ${pct(calibration.bootstrap.coverage)} (17.3 measured 0.916 with its own draws), with mean widths ${pct(calibration.bayes.meanWidth)} and ${pct(calibration.bootstrap.meanWidth)}. The model pools the tasks: like the task bootstrap it is uncertain because ten tasks are few, but its prior on the spread of task rates keeps it from taking ten alike tasks as proof that every task is alike. The coverage is measured under the model that generated the data (a beta population of task rates), the case most favourable to it.`,
    ),
    `At the trained agent's own task rates, not drawn from a beta population: ${coverage}`,
  );
}

function intervalsFigure(agents: Numbers['agents']) {
  return intervalChartSvg({
    title: 'Population mean pass rate on the 17.1 counts: task bootstrap and credible interval',
    xTitle: 'checkpoint',
    yTitle: 'pass rate',
    points: agents.flatMap((row) => [
      intervalPoint(`step ${row.step}`, 'task bootstrap', row.passAt1, row.bootstrap),
      intervalPoint(`step ${row.step}`, 'beta-binomial posterior', row.bayes.mean, row.bayes),
    ]),
  });
}

export async function report(numbers: Numbers, { coverage }: { coverage: string }): Promise<Report> {
  const markdown = blocks(countsSection(numbers.agents), calibrationSection(numbers, coverage));
  return { markdown, figures: { 'ex-3-intervals.svg': await intervalsFigure(numbers.agents) } };
}
