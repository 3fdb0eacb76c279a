import { describe, expect, it } from 'vitest';
import { meanStandardError } from '../eval/index.ts';

// The standard error of a mean, s / sqrt(n), checked against scipy and against
// lm-evaluation-harness's own reported stderr.
describe('meanStandardError', () => {
  it('is scipy.stats.sem (ddof=1), value by value', () => {
    // scipy 1.17.1: scipy.stats.sem([1, 0, 1, 1]), sem([0.67, 1, 0, 0.67, 1]), sem([0.25, 0.75, 1, 0, 0.5, 0.5])
    expect(meanStandardError([1, 0, 1, 1])).toBeCloseTo(0.25, 15);
    expect(meanStandardError([0.67, 1, 0, 0.67, 1])).toBeCloseTo(0.18257601156778508, 15);
    expect(meanStandardError([0.25, 0.75, 1, 0, 0.5, 0.5])).toBeCloseTo(0.14433756729740646, 15);
  });

  it("is lm-evaluation-harness's acc_stderr for 7 of 10 correct", () => {
    // samples/lm-eval/results_2026-08-20T10-15-02.318204.json: boolq acc 0.7, acc_stderr,none 0.15275252316519466
    expect(meanStandardError([1, 1, 1, 1, 1, 1, 1, 0, 0, 0])).toBeCloseTo(0.15275252316519466, 15);
  });

  it('needs two values', () => {
    expect(() => meanStandardError([1])).toThrow(RangeError);
    expect(() => meanStandardError([1, Number.NaN])).toThrow(RangeError);
  });
});
