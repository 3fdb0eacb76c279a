/**
 * The book's figures against ours: where a stated coverage or range lies against a reference
 * computed here, each verdict with its sentence (the results record it beside the numbers).
 */

/** A distance in standard errors, one decimal, signed when positive (0.0 stays unsigned). */
export const zScore = (z: number) => `${z > 0 ? '+' : ''}${z.toFixed(1)}`;

/** Monte Carlo standard error of a share estimated from `evals` independent 0/1 outcomes. */
export function shareSE(share: number, evals: number): number {
  return Math.sqrt((share * (1 - share)) / evals);
}

/**
 * Where a book's coverage figure lies against a reference computed here (exact, or a large
 * simulation with its own SE): within 2 standard errors of a run of `evals` evaluations, or
 * outside, and then how few evaluations a run would need for the figure to be within 2 SE.
 */
export function compareWithBook({
  book,
  reference,
  referenceSE = 0,
  evals,
}: {
  book: number;
  reference: number;
  referenceSE?: number;
  evals: number;
}) {
  const runSE = shareSE(reference, evals);
  // (book - reference) in standard errors of a run of `evals` evaluations (and of the reference).
  const z = (book - reference) / Math.sqrt(runSE ** 2 + referenceSE ** 2);
  const outside = Math.abs(z) > 2;
  // The largest run (in evaluations) whose 2-SE band around the reference still reaches the book's figure.
  const room = (book - reference) ** 2 / 4 - referenceSE ** 2;
  const maxEvals = room > 0 ? Math.floor((reference * (1 - reference)) / room) : null;
  const text = outside
    ? `outside: ${zScore(z)} SE of a ${evals}-eval run${maxEvals === null ? '' : `; within 2 SE only of runs of at most ${maxEvals} evals`}`
    : `within 2 SE (${zScore(z)})`;
  return { z, outside, maxEvals, text };
}

/** How many decimals a number as a book writes it has: 0.04 -> 2, 0.93 -> 2, 1 -> 0. */
const decimalsOf = (value: number) => (String(value).split('.')[1] ?? '').length;

/**
 * Whether an exact value lies in the range a book states, e.g. "0.93 to 0.97", read two ways:
 * at the book's own precision (the value rounded to the decimals its bounds are written with,
 * the headline: -0.0356 is -0.04, inside "0.04 to 0.08") and exactly (`outsideExact`).
 */
export function compareWithRange({
  value,
  low,
  high,
  digits = 3,
}: {
  value: number;
  low: number;
  high: number;
  digits?: number;
}): { outside: boolean; outsideExact: boolean; text: string } {
  const decimals = Math.max(decimalsOf(low), decimalsOf(high));
  const rounded = Number(value.toFixed(decimals));
  const outside = rounded < low || rounded > high;
  const outsideExact = value < low || value > high;
  return {
    outside,
    outsideExact,
    text: outside
      ? `outside: exact ${value.toFixed(digits)} is not in ${low} to ${high}, even at the book's ${decimals} decimals`
      : outsideExact
        ? `inside at the book's ${decimals} decimals (exact ${value.toFixed(digits)} is ${rounded.toFixed(decimals)}); just outside read exactly`
        : 'inside',
  };
}
