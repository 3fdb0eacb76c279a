/** The report of 17.2 (experiments/17.2.ts): plug-in against unbiased pass@k, and the product form against exact arithmetic. */
import type { Numbers172 as Numbers } from '../../analysis/index.ts';
import { blocks, count, section, signed, table, withSE, type Report } from '../markdown.ts';

const f4 = (value: number) => value.toFixed(4);

/** The book's figure for a product-form case it states. */
function bookProductForm({ n, c, k }: { n: number; c: number; k: number }): string {
  if (n === 10 && c === 3) return '0.9167 (1 - 21/252)';
  if (n === 2000) return '0.9689 (about 1 - 2^-5)';
  return n - c < k ? 'exactly 1 (n - c < k)' : '';
}

export function report(
  { monteCarlo, productForm }: Numbers,
  { n, k, evals }: { n: number; k: number; evals: number },
): Report {
  const outside = monteCarlo.filter(({ bookRange }) => bookRange.outside);
  const justOutside = monteCarlo.filter(({ bookRange }) => bookRange.outsideExact);
  const markdown = blocks(
    section(
      `Plug-in vs unbiased pass@${k}, n = ${n}, ${count(evals)} simulated evals per p`,
      `Ours ± its Monte Carlo SE; "exact" is the expectation over c ~ Binomial(${n}, p), summed from the binomial pmf.`,
      table(monteCarlo, [
        ['p', (row) => row.p],
        [`true pass@${k}`, (row) => f4(row.truth)],
        ['plug-in bias (ours)', (row) => withSE(row.plugInBias, row.plugInSE, { digits: 4, sign: true })],
        ['plug-in bias (exact)', (row) => signed(row.plugInBiasExact, 4)],
        ['book', () => '-0.04 to -0.08'],
        ['book vs exact', (row) => row.bookRange.text],
        [
          'unbiased bias (ours)',
          (row) => withSE(row.unbiasedBias, row.monteCarloSE, { digits: 4, sign: true }),
        ],
        ['unbiased bias (exact)', (row) => signed(row.unbiasedBiasExact, 4)],
        ['book', () => 'within ~0.001'],
      ]),
      outside.length === 0
        ? justOutside.length > 0
          ? `The exact plug-in bias lies in the book's -0.04 to -0.08 at every p at the book's two decimals; read exactly, it is just outside at p = ${justOutside.map(({ p, plugInBiasExact }) => `${p} (${signed(plugInBiasExact, 4)})`).join(', ')}.`
          : "The exact plug-in bias lies in the book's -0.04 to -0.08 at every p."
        : `The book's "low by 0.04 to 0.08 at every p" does not hold at p = ${outside.map(({ p }) => p).join(', ')}: the exact plug-in bias there is ${outside.map(({ plugInBiasExact }) => signed(plugInBiasExact, 4)).join(', ')}.`,
    ),
    section(
      'Product form vs exact arithmetic',
      table(productForm, {
        n: (row) => row.n,
        c: (row) => row.c,
        k: (row) => row.k,
        'product form': (row) => f4(row.productForm),
        'exact (BigInt)': (row) => `${row.exact} = ${f4(row.exactValue)}`,
        'C(n, k) digits': (row) => row.binomialDigits,
        book: bookProductForm,
      }),
    ),
  );
  return { markdown };
}
