/** The report of exercise 4 (experiments/ex-4.ts): the held-out-type experiment for every bug type. */
import type { NumbersEx4 as Numbers } from '../../analysis/index.ts';
import { lineChartSvg } from '../figures.ts';
import { blocks, interval, pct, reading, section, signed, table, topOps, type Report } from '../markdown.ts';

const bits = (value: number | null) => (value === null ? 'n/a' : value.toFixed(2));
const share = (value: number | null) => (value === null ? 'n/a' : pct(value));
/** A spread over at least two ops, as two equally likely ones have: what guessing means at one decision. */
const GUESSING_BITS = 1;

/** `low to high`, or the one value when both print alike. */
const spread = (values: readonly number[], format: (value: number) => string) => {
  const [low, high] = [format(Math.min(...values)), format(Math.max(...values))];
  return low === high ? low : `${low} to ${high}`;
};
/** The number of equally likely ops with the same entropy, 2^H. */
const effectiveOps = (entropyBits: number) => (2 ** entropyBits).toFixed(1);

/** What the policy's entropy at the decision says against the pooled entropy of its sampled first edits. */
function decisionReading(rows: Numbers['rows']): string {
  const known = (values: Array<number | null>) => values.filter((value): value is number => value !== null);
  const trained = known(rows.map((row) => row.trained.decision.entropy));
  const base = known(rows.map((row) => row.base.decision.entropy));
  const pooled = known(rows.map((row) => row.trained.firstEditEntropy));
  const right = known(rows.map((row) => row.trained.decision.rightOp));
  const baseRight = known(rows.map((row) => row.base.decision.rightOp));
  if (trained.length === 0 || base.length === 0 || pooled.length === 0) return 'no checkpoint made an edit.';
  const measured = `at the decision of its first edit on the unseen type, the base agent's own distribution over the six ops has an entropy of ${spread(base, bits)} bits (mean over a type's tasks of each task's mean over its episodes; a uniform guess among six ops has ${Math.log2(6).toFixed(2)}), as much spread as ${spread(base, effectiveOps)} equally likely ops, and step 30's ${spread(trained, bits)} bits, ${spread(trained, effectiveOps)} ops' worth, against ${spread(pooled, bits)} bits for the first edits step 30 sampled, pooled over the type's episodes (the difference is the part of the pooled spread that comes from different ops on different tasks or names). The repair op's probability at the decision falls from ${spread(baseRight, pct)} (base) to ${spread(right, pct)} (step 30).`;
  const typesWhere = (test: (entropy: number) => boolean) =>
    rows
      .filter(({ trained: { decision } }) => decision.entropy !== null && test(decision.entropy))
      .map((row) => row.type);
  const guessing = typesWhere((entropy) => entropy > GUESSING_BITS);
  const sure = typesWhere((entropy) => entropy <= GUESSING_BITS);
  if (guessing.length === rows.length)
    return `${measured} On every type step 30 still spreads each decision over more than ${effectiveOps(GUESSING_BITS)} ops' worth (above ${GUESSING_BITS} bit): it guesses, among fewer ops than the base agent and almost never the unseen type's repair. Training took the probability off the unseen type's repair, not the guessing.`;
  if (sure.length === rows.length)
    return `${measured} On every type step 30 is nearly sure at each decision (at most ${GUESSING_BITS} bit): the spread of the pooled first edits comes from different ops on different tasks or names, not from guessing. Training removed the guessing with the unrewarded op.`;
  return `${measured} Step 30 still guesses (above ${GUESSING_BITS} bit at the decision) on ${guessing.join(', ') || 'no type'}, and is nearly sure on ${sure.join(', ') || 'no type'}.`;
}

function typesSection({ episodes, rows }: Numbers): string {
  const below = rows.filter((row) => row.belowBase);
  return section(
    `Each bug type held out in turn: its six tasks, ${episodes} episodes each, base agent (step 0) against step 30`,
    table(rows, {
      'unseen type': (row) => row.type,
      'base pass@1 [task interval]': (row) => `${pct(row.base.passAt1)} ${interval(row.base.interval)}`,
      'step 30 pass@1 [task interval]': (row) =>
        `${pct(row.trained.passAt1)} ${interval(row.trained.interval)}`,
      'step 30 - base [paired interval]': (row) =>
        `${signed(row.difference.estimate)} ${interval(row.difference, signed)}`,
      'below base': (row) => (row.belowBase ? 'yes' : 'no'),
      "policy's entropy at the first edit, base -> step 30 (bits)": (row) =>
        `${bits(row.base.decision.entropy)} -> ${bits(row.trained.decision.entropy)}`,
      'its P(repair op), base -> step 30': (row) =>
        `${share(row.base.decision.rightOp)} -> ${share(row.trained.decision.rightOp)}`,
      'sampled first edits, pooled entropy, base -> step 30 (bits)': (row) =>
        `${bits(row.base.firstEditEntropy)} -> ${bits(row.trained.firstEditEntropy)}`,
      'first edit right, base / step 30': (row) =>
        `${pct(row.base.firstEditRight)} / ${pct(row.trained.firstEditRight)}`,
      'step 30 first edits': (row) => topOps(row.trained.firstEdits),
    }),
    reading(
      `step 30 is below the base agent, with a paired interval below 0, on ${below.length} of ${rows.length} unseen types${below.length > 0 ? ` (${below.map((row) => row.type).join(', ')})` : ''}. One edit per episode: a wrong first edit fails, so the pass rate is the share of first edits on the unseen type's repair. The pooled entropy of the sampled first edits cannot tell a policy that guesses at each decision from one that is sure of a different op on each task; the policy's own entropy at the decision can: ${decisionReading(rows)}`,
    ),
  );
}

function decisionsSection(rows: Numbers['rows']): string {
  return section(
    'Per task: the policy at the decision of its first edit (means over the episodes that edited)',
    table(
      rows.flatMap((row) =>
        row.base.decision.perTask.map((base, j) => ({
          type: row.type,
          base,
          trained: row.trained.decision.perTask[j]!,
        })),
      ),
      {
        'unseen type': (row) => row.type,
        task: (row) => row.base.task,
        'entropy, base -> step 30 (bits)': (row) =>
          `${bits(row.base.entropy)} -> ${bits(row.trained.entropy)}`,
        'P(repair op), base -> step 30': (row) =>
          `${share(row.base.rightOp)} -> ${share(row.trained.rightOp)}`,
        'episodes that edited, base / step 30': (row) => `${row.base.episodes} / ${row.trained.episodes}`,
      },
    ),
  );
}

function entropyFigure(rows: Numbers['rows']) {
  return lineChartSvg({
    title:
      "Unseen type: change in the policy's entropy at the first edit against change in pass@1 (step 30 - base)",
    xTitle: "policy's entropy at the first edit, step 30 - base (bits)",
    yTitle: 'pass@1, step 30 - base',
    legendTitle: 'unseen type',
    // A type where either checkpoint made no edit has no entropy to plot.
    series: rows.flatMap((row) =>
      row.base.decision.entropy === null || row.trained.decision.entropy === null
        ? []
        : [
            {
              name: row.type,
              points: [
                { x: row.trained.decision.entropy - row.base.decision.entropy, y: row.difference.estimate },
              ],
            },
          ],
    ),
  });
}

export async function report(numbers: Numbers): Promise<Report> {
  const markdown = blocks(typesSection(numbers), decisionsSection(numbers.rows));
  return { markdown, figures: { 'ex-4-entropy-vs-drop.svg': await entropyFigure(numbers.rows) } };
}
