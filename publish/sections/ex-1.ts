/** The report of exercise 1 (experiments/ex-1.ts): the variance of the unbiased and plug-in pass@k estimators. */
import type { NumbersEx1 as Numbers } from '../../analysis/index.ts';
import { lineChartSvg } from '../figures.ts';
import { count, pct, reading, section, table, withSE, type Report } from '../markdown.ts';

const small = (value: number) => value.toPrecision(4);

export async function report(numbers: Numbers): Promise<Report> {
  const { n, p, draws, rows, byK } = numbers;
  const lines = rows.flatMap(({ k, truth, estimators }) => estimators.map((row) => ({ k, truth, ...row })));
  const markdown = section(
    `The unbiased and plug-in pass@k at n = ${n}, p = ${p}: ${count(draws)} simulated evaluations against the exact sums`,
    table(lines, {
      k: (row) => row.k,
      estimator: (row) => row.estimator,
      'truth 1-(1-p)^k': (row) => pct(row.truth),
      'mean (simulated ± MC SE)': (row) => withSE(row.simulated.mean, row.simulated.meanSE, { digits: 4 }),
      'mean (exact)': (row) => row.exact.mean.toFixed(4),
      'variance (simulated ± MC SE)': (row) =>
        `${small(row.simulated.variance)} ± ${small(row.simulated.varianceSE)}`,
      'variance (exact)': (row) => small(row.exact.variance),
      'simulated - exact (MC SEs)': (row) => row.varianceZ.toFixed(2),
      'MSE (exact)': (row) => small(row.exact.mse as number),
    }),
    reading(
      `the unbiased estimator's mean equals the truth at both k, and its simulated variance agrees with the exact one within ${Math.max(...lines.map((row) => Math.abs(row.varianceZ))).toFixed(1)} Monte Carlo SEs. At k = 32 one task's estimate has SD ${Math.sqrt(rows[0]!.estimators[0]!.exact.variance).toFixed(3)} against ${Math.sqrt(rows[1]!.estimators[0]!.exact.variance).toFixed(3)} at k = 4: with c mostly 0 to 6 of 64, the estimate at k = 32 jumps from 0 (c = 0) to about 0.5 (c = 1) and 0.75 (c = 2). The plug-in is biased low (${pct(rows[0]!.estimators[1]!.exact.mean)} against ${pct(rows[0]!.truth)} at k = 32); at k = 32 its MSE is above the unbiased one's, at k = 4 its lower variance outweighs its small bias. Minimum variance holds among unbiased estimators only.`,
    ),
  );
  const figure = await lineChartSvg({
    title: `pass@k estimators at n = ${n}, p = ${p}: exact variance and MSE by k`,
    xTitle: 'k',
    yTitle: 'variance (unbiased) / MSE (plug-in)',
    series: [
      { name: 'unbiased: variance (= MSE)', points: byK.map((row) => ({ x: row.k, y: row.unbiased })) },
      { name: 'plug-in: MSE', points: byK.map((row) => ({ x: row.k, y: row.plugInMse })) },
    ],
  });
  return { markdown, figures: { 'ex-1-variance-by-k.svg': figure } };
}
