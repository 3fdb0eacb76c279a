import { describe, expect, it } from 'vitest';
import { expandedPercentileLevel } from '../eval/index.ts';

describe('expandedPercentileLevel (Hesterberg 2015, section 4.4)', () => {
  // scipy 1.10.1: 1 - 2 * norm.sf(sqrt(n / (n - 1)) * t.ppf(0.975, n - 1))
  it.each([
    [8, 0.9885249589455886],
    [10, 0.9828987219483842],
    [16, 0.9722888591904336],
  ])('n %i at 95%%', (n, level) => {
    expect(expandedPercentileLevel(n, 0.95)).toBeCloseTo(level, 10);
  });

  it('tends to the level itself as n grows, and refuses one unit', () => {
    expect(expandedPercentileLevel(100_000, 0.95)).toBeCloseTo(0.95, 4);
    expect(() => expandedPercentileLevel(1, 0.95)).toThrow(/\bn\b/);
    // At 2 units 1 - 2 P(Z > 17.96) rounds to 1: the level stays a valid one, the replicates' range.
    expect(expandedPercentileLevel(2, 0.95)).toBeLessThan(1);
  });
});
