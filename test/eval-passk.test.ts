import { describe, expect, it } from 'vitest';
import {
  allCorrectAtK,
  exactPassAtK,
  firstSampleAccuracy,
  meanAccuracy,
  passAtK,
  plugInPassAtK,
  prefixAllCorrectAtK,
  prefixPassAtK,
} from '../eval/index.ts';
import { DIRECT_FACTORS, MAX_SERIES_TERMS, noneDrawn } from '../eval/noneDrawn.ts';

// Reference: the HumanEval paper's numpy estimator (Chen et al. 2021, Fig. 3),
// `1 - np.prod(1 - k / np.arange(n - c + 1, n + 1))` (1.0 when n - c < k), numpy 1.24.2.
const HUMANEVAL_NUMPY: Array<[number, number, number, number]> = [
  [10, 3, 5, 0.9166666666666666],
  [2000, 5, 1000, 0.9689062107418256],
  [10, 0, 1, 0.0],
  [10, 10, 10, 1.0],
  [10, 3, 10, 1.0],
  [200, 17, 100, 0.99999636769084],
  [64, 10, 32, 0.9995741013348244],
  [64, 3, 32, 0.8809523809523809],
  [1, 0, 1, 0.0],
  [1, 1, 1, 1.0],
  [100, 1, 1, 0.010000000000000009],
  [2000, 1000, 1000, 1.0],
  [2000, 1, 1999, 0.9995],
  [5, 2, 5, 1.0],
];

describe('passAtK (unbiased, product form)', () => {
  it.each(HUMANEVAL_NUMPY)('n=%i c=%i k=%i matches the HumanEval numpy estimator', (n, c, k, expected) => {
    expect(passAtK(n, c, k)).toBeCloseTo(expected, 14);
  });

  it('agrees with exact BigInt arithmetic, including n = 2000 where C(2000, 1000) has 600 digits', () => {
    const small = exactPassAtK(10, 3, 5);
    expect(small.numerator).toBe(11n);
    expect(small.denominator).toBe(12n); // 1 - 21/252 = 231/252 = 11/12
    for (const [n, c, k] of [
      [2000, 5, 1000],
      [2000, 17, 10],
      [200, 17, 100],
      [64, 3, 32],
      [10, 0, 3],
      [10, 10, 1],
      [7, 2, 7],
    ] as const) {
      expect(passAtK(n, c, k)).toBeCloseTo(exactPassAtK(n, c, k).value, 13);
    }
    // Python: 1 - Fraction(comb(1995, 1000), comb(2000, 1000)), from two 601-digit integers.
    const large = exactPassAtK(2000, 5, 1000);
    expect([large.numerator, large.denominator]).toEqual([7735753n, 7984006n]);
    expect(1 - exactPassAtK(2000, 5, 1000).value).toBeCloseTo(2 ** -5, 3);
  });

  it('is exactly 1 when n - c < k and 0 when c = 0', () => {
    expect(passAtK(10, 6, 5)).toBe(1);
    expect(passAtK(10, 10, 1)).toBe(1);
    expect(passAtK(50, 0, 50)).toBe(0);
  });

  it('throws RangeError on k > n, k < 1, c outside [0, n], non-integers', () => {
    expect(() => passAtK(10, 3, 11)).toThrow(RangeError);
    expect(() => passAtK(10, 3, 0)).toThrow(RangeError);
    expect(() => passAtK(10, 11, 1)).toThrow(RangeError);
    expect(() => passAtK(10, -1, 1)).toThrow(RangeError);
    expect(() => passAtK(10, 2.5, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
    expect(() => exactPassAtK(10, 3, 11)).toThrow(RangeError);
  });

  it('is monotone in k for every (n, c) (property)', () => {
    for (const n of [1, 2, 5, 10, 33, 64]) {
      for (let c = 0; c <= n; c++) {
        let previous = -Infinity;
        for (let k = 1; k <= n; k++) {
          const value = passAtK(n, c, k);
          if (!(value >= previous - 1e-15 && value >= 0 && value <= 1))
            expect({ n, c, k, value, previous }).toBe('monotone in [0, 1]');
          previous = value;
        }
      }
    }
  });

  it('pass@1 is c/n, and pass@n is 1 when c > 0', () => {
    expect(passAtK(40, 7, 1)).toBeCloseTo(7 / 40, 15);
    expect(passAtK(40, 1, 40)).toBe(1);
  });
});

// Reference: mpmath 1.2.1 at 60 digits, L = loggamma(n-c+1) - loggamma(n-c-k+1) - loggamma(n+1)
// + loggamma(n-k+1), pass@k = -expm1(L). Columns: n, c, k, pass@k.
const MPMATH_LARGE: Array<[number, number, number, number]> = [
  [1e12, 5e11, 2, 0.75000000000025],
  [1e10, 300000, 400000, 0.99999385836777597213],
  [1e13, 2e6, 3e6, 0.45118844622772049071],
  [9007199254740991, 123456789, 987654321, 0.99999867915950637371],
];

describe('passAtK at counts far beyond any benchmark', () => {
  it.each(MPMATH_LARGE)('n=%d c=%d k=%d matches mpmath', (n, c, k, expected) => {
    expect(passAtK(n, c, k)).toBeCloseTo(expected, 14);
    expect(Math.abs(passAtK(n, c, k) - expected) / expected).toBeLessThan(1e-13);
  });

  it('does work independent of c and k: at most DIRECT_FACTORS factors, or a series of at most 99 terms (the time is in npm run bench)', () => {
    // [n, c, k, factors or terms for pass@k (c marked), for pass^k (n - c marked)]
    const cases: Array<[number, number, number, number, number]> = [
      [1e12, 5e11, 2, 2, 2],
      [1e12, 5e11, 1e6, 0, 0],
      [1e12, 5e11, 5e11, 0, 0], // underflows to 0 with no work at all
      [2 ** 53 - 1, 2 ** 52, 2 ** 52, 0, 0],
      [2 ** 53 - 1, 3e7, 3e8, 4, 0], // 3e7 factors: the series instead, converged after 4 terms
      [1e15, 1, 1e15 - 1, 1, 0],
      [1e15, 1e15 - 1, 1e15, 0, 0],
    ];
    for (const [n, c, k, passTerms, allTerms] of cases) {
      const none = noneDrawn(n, c, k);
      const noFailure = noneDrawn(n, n - c, k);
      expect(none.complement).toBe(passAtK(n, c, k));
      expect(noFailure.probability).toBe(allCorrectAtK(n, c, k));
      expect([none.complement, noFailure.probability].every((value) => value >= 0 && value <= 1)).toBe(true);
      expect([none.terms, noFailure.terms], `${n} ${c} ${k}`).toEqual([passTerms, allTerms]);
    }
    // The largest direct product: min(c, k) factors up to DIRECT_FACTORS, never more.
    expect(noneDrawn(2 ** 53 - 1, DIRECT_FACTORS, 1e9).terms).toBe(DIRECT_FACTORS);
    expect(noneDrawn(2 ** 53 - 1, DIRECT_FACTORS + 1, 1e9).terms).toBeLessThanOrEqual(MAX_SERIES_TERMS);
  });

  it('allCorrectAtK needs only min(k, n - c) factors: C(n-1, k) / C(n, k) = (n - k) / n', () => {
    expect(allCorrectAtK(1e15, 1e15 - 1, 5e14)).toBeCloseTo(0.5, 14);
    expect(allCorrectAtK(1e15, 1e15, 5e14)).toBe(1);
  });
});

describe('allCorrectAtK (unbiased pass^k)', () => {
  it('equals C(c,k)/C(n,k) (exact arithmetic by hand)', () => {
    expect(allCorrectAtK(10, 3, 2)).toBeCloseTo(3 / 45, 15); // C(3,2)/C(10,2)
    expect(allCorrectAtK(10, 10, 10)).toBe(1);
    expect(allCorrectAtK(10, 9, 10)).toBe(0);
    expect(allCorrectAtK(10, 0, 1)).toBe(0);
    expect(allCorrectAtK(2000, 1990, 1000)).toBeGreaterThan(0);
  });
  it('falls with k and throws on k > n', () => {
    for (let k = 2; k <= 12; k++)
      expect(allCorrectAtK(12, 8, k)).toBeLessThanOrEqual(allCorrectAtK(12, 8, k - 1));
    expect(() => allCorrectAtK(5, 2, 6)).toThrow(RangeError);
  });
});

describe('plug-in, prefix and accuracies', () => {
  it('plug-in is 1 - (1 - c/n)^k and lies below the unbiased estimator', () => {
    expect(plugInPassAtK(10, 3, 5)).toBeCloseTo(1 - 0.7 ** 5, 15);
    expect(plugInPassAtK(10, 3, 5)).toBeLessThan(passAtK(10, 3, 5));
    expect(() => plugInPassAtK(10, 11, 5)).toThrow(RangeError);
  });

  it("reproduces the blog's four-task example", () => {
    const rows = ['1000000000', '0110000000', '1111111111', '0000000000'].map((text) =>
      Array.from(text, Number),
    );
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean(rows.map((outcomes) => prefixPassAtK(outcomes, 10)))).toBe(0.75);
    expect(
      meanAccuracy(rows.map((outcomes) => ({ n: 10, c: outcomes.reduce((a, b) => a + b, 0) }))),
    ).toBeCloseTo(0.325, 15);
    expect(mean(rows.map((outcomes) => prefixAllCorrectAtK(outcomes, 10)))).toBe(0.25);
    expect(firstSampleAccuracy(rows)).toBe(0.5);
    const counts = rows.map((outcomes) => outcomes.reduce((a, b) => a + b, 0));
    expect(mean(counts.map((c) => passAtK(10, c, 1)))).toBeCloseTo(0.325, 15);
    expect(mean(counts.map((c) => passAtK(10, c, 10)))).toBeCloseTo(0.75, 15);
  });

  it('prefix pass@k is monotone on any ordered batch, prefix pass^k falls (property)', () => {
    let state = 12345;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 200; trial++) {
      const outcomes = Array.from({ length: 1 + Math.floor(next() * 20) }, () => (next() < 0.3 ? 1 : 0));
      for (let k = 2; k <= outcomes.length; k++) {
        expect(prefixPassAtK(outcomes, k)).toBeGreaterThanOrEqual(prefixPassAtK(outcomes, k - 1));
        expect(prefixAllCorrectAtK(outcomes, k)).toBeLessThanOrEqual(prefixAllCorrectAtK(outcomes, k - 1));
      }
    }
    expect(() => prefixPassAtK([1, 0], 3)).toThrow(RangeError);
    expect(() => firstSampleAccuracy([])).toThrow(RangeError);
  });
});
