import { checkK, checkSuccesses, checkTrials } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** An exact rational and its nearest float. */
export interface ExactRational {
  numerator: bigint;
  denominator: bigint;
  value: number;
}

/** Below this many bits in C(n, k) exact arithmetic stays fast (measured: docs/MEASUREMENTS.md). */
const MAX_BITS = 50_000;

function binomial(n: bigint, k: bigint): bigint {
  if (k < 0n || k > n) return 0n;
  if (n - k < k) k = n - k;
  let result = 1n;
  for (let i = 1n; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/**
 * Unbiased pass@k in exact BigInt arithmetic, 1 - C(n-c, k) / C(n, k) as a reduced fraction
 * (Chen et al. 2021, eq. 1), for testing the product form where the coefficients do not fit
 * a float (C(2000, 1000) has 600 digits). The float is the fraction scaled by 2^64 first.
 *
 * @throws StatisticsError as passAtK, and when C(n, k) would exceed about 50,000 bits (the bound
 *   k' log2(e n / k'), k' = min(k, n - k)): use passAtK there.
 * @example exactPassAtK(10, 3, 5) // { numerator: 231n, denominator: 252n } reduced to 11n/12n
 */
export function exactPassAtK(n: number, c: number, k: number): ExactRational {
  checkTrials(n);
  checkSuccesses(c, n);
  checkK(k, n);
  const shorter = Math.min(k, n - k);
  const bits = shorter === 0 ? 0 : shorter * Math.log2((Math.E * n) / shorter);
  if (bits > MAX_BITS)
    throw new StatisticsError(
      `k = ${k} with n = ${n}: C(n, k) has up to ${Math.round(bits)} bits; exact arithmetic is limited to ${MAX_BITS} (use passAtK)`,
    );
  const total = binomial(BigInt(n), BigInt(k));
  const allFail = binomial(BigInt(n - c), BigInt(k));
  const divisor = gcd(total - allFail, total) || 1n;
  const numerator = (total - allFail) / divisor;
  const denominator = total / divisor;
  const value = Number((numerator << 64n) / denominator) / 2 ** 64;
  return { numerator, denominator, value };
}
