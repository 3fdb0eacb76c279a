import { describe, expect, it } from 'vitest';
import { countDropDetection, pairedDropTestPower } from '../eval/index.ts';

// Reference values: scipy 1.10.1, exact sums in Python (Debian python3-scipy):
//   count:  sum_x binom.pmf(x, n, early) * binom.cdf(x - 1, n, late)
//   paired: sum_d binom.pmf(d, n, a + b) * sum_{x: binomtest(x, d, 0.5, 'greater').pvalue < alpha}
//           binom.pmf(x, d, a / (a + b)),  a = early (1 - late), b = (1 - early) late
const CASES: Array<[number, number, number, number, [number, number, number, number]]> = [
  [
    64,
    10 / 64,
    3 / 64,
    0.9762766604993623,
    [0.5565133287216923, 0.1876487919059869, 0.05751829363011524, 0.020176616006336034],
  ],
  [
    64,
    13 / 64,
    3 / 64,
    0.9964780949582728,
    [0.8106749647383272, 0.43565931918314754, 0.2018906753341155, 0.0969029152625147],
  ],
  [
    32,
    0.5,
    0.25,
    0.9763992250423708,
    [0.5758761760965351, 0.1986330805914083, 0.06758205958444048, 0.025608086378683143],
  ],
  [8, 0.9, 0.1, 0.9999386745470686, [0.9031249288052936, 0.1853020188851842, 0, 0]],
];
const ALPHAS = [0.05, 0.005, 0.05 / 70, 0.05 / 360];

describe('detection rates of a drop (scipy reference values)', () => {
  it.each(CASES)('n %i, %f -> %f', (n, early, late, count, powers) => {
    expect(countDropDetection({ n, early, late })).toBeCloseTo(count, 12);
    ALPHAS.forEach((alpha, i) =>
      expect(pairedDropTestPower({ n, early, late }, alpha)).toBeCloseTo(powers[i]!, 12),
    );
  });

  it('no drop to see: the rates are those of chance, and nothing discordant is never detected', () => {
    expect(pairedDropTestPower({ n: 64, early: 0.3, late: 0.3 }, 0.05)).toBeLessThan(0.05);
    expect(pairedDropTestPower({ n: 64, early: 1, late: 1 }, 0.05)).toBe(0);
    expect(countDropDetection({ n: 64, early: 0, late: 0 })).toBe(0);
  });

  it('refuses a rate outside [0, 1], no episodes and a level outside (0, 1)', () => {
    expect(() => countDropDetection({ n: 0, early: 0.5, late: 0.1 })).toThrow(/\bn\b/);
    expect(() => countDropDetection({ n: 8, early: 1.5, late: 0.1 })).toThrow(/early/);
    expect(() => pairedDropTestPower({ n: 8, early: 0.5, late: 0.1 }, 1)).toThrow(RangeError);
  });
});
