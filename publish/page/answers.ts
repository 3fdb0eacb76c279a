/**
 * The report page's first lines: the chapter's three questions (does RL raise pass@k at large k
 * or only sharpen; how many seeds; is A better than B), each answered in a sentence from the
 * results JSON, with its interval and links to the sections it rests on. Every number is read
 * from a results file or computed from them by eval/; a verdict that is negative says what the
 * design could have detected. A file that is missing, or does not hold what an answer needs,
 * turns that answer into the command to run, never into a guess.
 */
import { z } from 'zod';
import { normalQuantile, requiredUnits } from '../../eval/index.ts';
import { formatZodIssues } from '../../lib/zodIssues.ts';
import { escapeHtml } from '../html.ts';
import { interval, pct as f3, signed, withInterval } from '../markdown.ts';

/** The level and power at which an answer says what a design could detect: the chapter's (17.4's power table). */
const ALPHA = 0.05;
const POWER = 0.8;
const DESIGN = `two-sided ${ALPHA * 100}%, power ${POWER}`;

/**
 * The results files the three answers read, by section (17.4, 17.7, the seed study, exercise 7):
 * each one's JSON (undefined when missing), its name, the command that makes it and its section.
 */
export type AnswerSources = Record<
  '17.4' | '17.7' | 'seeds' | 'ex-7',
  { name: string; json: unknown; command: string; section: { id: string; label: string } }
>;

const points = (delta: number) => Number((delta * 100).toPrecision(3));
const ends = z.object({ low: z.number(), high: z.number() });
const estimate = ends.extend({ estimate: z.number() });
const [holds, seeds, standing, detection] = [z.number(), z.number(), z.string(), z.number().nullable()];
const claim = z.object({ holds, seeds, interval: ends, standing, detection });
const pointAtK = z.object({ k: z.number(), mean: z.number(), low: z.number(), high: z.number() });

/** What each answer reads of each file: the fields, not the whole file (a field it lacks is named in the note). */
const SCHEMAS = {
  '17.7': z.object({
    config: z.object({ run: z.string() }),
    numbers: z.object({
      agents: z.array(z.object({ step: z.number(), curve: z.array(pointAtK).min(1) })).min(2),
      crossing: z.number().nullable(),
      step80BandAtLargeK: z.array(z.object({ k: z.number() })).min(1),
    }),
  }),
  seeds: z.object({
    config: z.object({ recipe: z.string() }),
    numbers: z.object({
      seeds: z.array(z.number()).min(2),
      claims: z.object({ overtakesBy32: claim, endsBelowBase: claim }),
      step80: z.object({ sdInterval: estimate }),
      noise: z.object({ step80: z.object({ training: estimate, evaluation: estimate }) }),
    }),
  }),
  '17.4': z.object({
    config: z.object({ run: z.string(), seeds: z.array(z.number()).min(1) }),
    numbers: z.object({
      paired: z.record(z.string(), z.number()),
      power: z.array(z.object({ delta: z.number().positive(), seedsPerGroupStep80: z.number() })).min(1),
      spreads: z.object({ seedSDStep80: z.number() }),
    }),
  }),
  'ex-7': z.object({
    numbers: z.object({
      claim: z.object({ a: z.number(), b: z.number(), tasks: z.number(), samples: z.number() }),
      review: z.object({ delta: z.number(), unpaired: z.object({ se: z.number(), z: z.number() }) }),
    }),
  }),
};

/** Why an answer cannot be given: the note shown in its place. */
class Unanswered extends Error {}

/** A source's fields as its schema reads them, or Unanswered naming the file and what it lacks. */
function read<Name extends keyof typeof SCHEMAS>(
  sources: AnswerSources,
  name: Name,
): z.infer<(typeof SCHEMAS)[Name]> {
  const source = sources[name];
  if (source.json === undefined) throw new Unanswered(`${source.name} is missing (run: ${source.command})`);
  const parsed = SCHEMAS[name].safeParse(source.json);
  if (!parsed.success)
    throw new Unanswered(
      `${source.name} does not record what this answer reads (${formatZodIssues(parsed.error.issues)}; rerun: ${source.command})`,
    );
  return parsed.data as z.infer<(typeof SCHEMAS)[Name]>;
}

/** The smallest difference a design with this SE detects at ALPHA and POWER: (z_{1-a/2} + z_power) SE (chapter 17.4). */
function detectable(standardError: number): number {
  return (normalQuantile(1 - ALPHA / 2) + normalQuantile(POWER)) * standardError;
}

/** How many seeds a claim holds in, with its rate's interval (seed and evaluation noise) and its standing (docs/CLAIMS.md). */
function seedCount({ holds, seeds, interval: rate, standing, detection }: z.infer<typeof claim>): string {
  const range = `two-stage 95% ${interval(rate)}`;
  const judged =
    standing === 'not detected'
      ? `not detected${detection === null ? '' : `: power ${f3(detection)} at the book's effect`}`
      : standing;
  return `${holds} of ${seeds} (${range}; ${judged})`;
}

/** 17.7 and the seed study: does RL raise pass@k at large k, or only sharpen the distribution? */
function passAtKAnswer(sources: AnswerSources): string {
  const { config, numbers } = read(sources, '17.7');
  const seeds = read(sources, 'seeds');
  const [base, trained] = [numbers.agents[0]!, numbers.agents.at(-1)!];
  const k = numbers.step80BandAtLargeK[0]!.k;
  const [baseAt, trainedAt] = [base, trained].map((agent) => agent.curve.find((point) => point.k === k));
  if (baseAt === undefined || trainedAt === undefined)
    throw new Unanswered(
      `${sources['17.7'].name} has no pass@${k} on a curve (rerun: ${sources['17.7'].command})`,
    );
  const { overtakesBy32: overtakes, endsBelowBase: narrows } = seeds.numbers.claims;
  const runAbove = numbers.crossing === null;
  const verdict =
    runAbove && overtakes.holds === 0
      ? 'It raises it'
      : !runAbove && overtakes.holds === overtakes.seeds
        ? 'It only sharpens'
        : 'It depends on the seed';
  const run = runAbove
    ? `in ${config.run} step ${trained.step} stays at or above the base agent at every k up to ${trained.curve.at(-1)!.k}`
    : `in ${config.run} the base agent overtakes step ${trained.step} from k = ${numbers.crossing}`;
  return `${verdict}: ${run} (at k = ${k}: ${f3(trainedAt.mean)}, task-level 95% ${interval(trainedAt)}, against ${f3(baseAt.mean)}); across the ${seeds.numbers.seeds.length} seeds of the ${seeds.config.recipe} recipe the base agent overtakes step 80 at some k up to 32 in ${seedCount(overtakes)}, and a held-out task ends below the base agent in ${seedCount(narrows)}.`;
}

/** The seed study and 17.4: how many seeds does a comparison of two recipes need? */
function seedsAnswer(sources: AnswerSources): string {
  const seeds = read(sources, 'seeds');
  const comparing = read(sources, '17.4');
  const sd = seeds.numbers.step80.sdInterval;
  const { training, evaluation } = seeds.numbers.noise.step80;
  // The power table's differences, largest first: the answer leads with the easiest to detect.
  const rows = [...comparing.numbers.power].sort((a, b) => b.delta - a.delta);
  const needed = rows.map(({ delta }, i) => {
    // As 17.4's power table counts seeds: the normal approximation, N per group.
    const [n, low, high] = [sd.estimate, sd.low, sd.high].map(
      (sigma) => requiredUnits({ sigma, delta, alpha: ALPHA, power: POWER, design: 'seeds' }).units,
    );
    return i === 0
      ? `${n} per recipe to tell two recipes ${points(delta)} points apart at step 80 (${low} to ${high} over the interval of the seed SD)`
      : `${n} for ${points(delta)} points (${low} to ${high})`;
  });
  const noise =
    training.low > evaluation.high
      ? `training noise, SD ${withInterval(training)}, is above evaluation noise, ${withInterval(evaluation)}: more episodes per seed do not replace seeds`
      : `training noise, SD ${withInterval(training)}, is not told apart from evaluation noise, ${withInterval(evaluation)}`;
  return `${needed.join(', ')}, for a two-sided test at ${ALPHA * 100}% with power ${POWER}: the ${seeds.numbers.seeds.length} seeds' step-80 held-out pass@1 has SD ${f3(sd.estimate)} (chi-square 95% ${interval(sd)}), where 17.4's ${comparing.config.seeds.length} seeds (SD ${f3(comparing.numbers.spreads.seedSDStep80)}) gave ${rows.map((row) => row.seedsPerGroupStep80).join(' and ')}; ${noise}.`;
}

/** 17.4 and exercise 7: is one checkpoint or recipe better than another? */
function betterAnswer(sources: AnswerSources): string {
  const comparing = read(sources, '17.4');
  const review = read(sources, 'ex-7').numbers;
  const { paired } = comparing.numbers;
  const steps = Object.keys(paired)
    .map((key) => /^step(\d+)$/.exec(key)?.[1])
    .filter((step) => step !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const { difference, low, high, pairedSE } = paired;
  if (steps.length !== 2 || [difference, low, high, pairedSE].some((value) => value === undefined))
    throw new Unanswered(
      `${sources['17.4'].name} does not record a paired comparison of two steps (rerun: ${sources['17.4'].command})`,
    );
  const [early, late] = steps as [number, number];
  const range = `paired task-level 95% [${signed(low!)}, ${signed(high!)}]`;
  const pairedVerdict =
    low! > 0 || high! < 0
      ? `step ${late} of ${comparing.config.run} is ${low! > 0 ? 'better' : 'worse'} than its step ${early} by ${signed(difference!)} (${range}, which excludes 0)`
      : `step ${late} of ${comparing.config.run} is not shown better or worse than its step ${early}: ${signed(difference!)} (${range}, which holds 0); the paired design would detect ${f3(detectable(pairedSE!))} or more (${DESIGN})`;
  const { claim, review: measured } = review;
  const z = normalQuantile(1 - ALPHA / 2);
  const reviewRange = `unpaired 95% [${signed(measured.delta - z * measured.unpaired.se)}, ${signed(measured.delta + z * measured.unpaired.se)}]`;
  const shown = Math.abs(measured.unpaired.z) >= z;
  const reviewVerdict = `the design review's claim, from ${f3(claim.a)} to ${f3(claim.b)} on ${claim.tasks} tasks with ${claim.samples} sample per task, is ${shown ? '' : 'not '}shown: ${signed(measured.delta)} is ${measured.unpaired.z.toFixed(2)} standard errors (${reviewRange}), and that design detects only ${f3(detectable(measured.unpaired.se))} or more (${DESIGN})`;
  return `Only where an interval excludes 0: ${pairedVerdict}; ${reviewVerdict}.`;
}

const QUESTIONS = [
  {
    question: 'Does RL raise pass@k at large k, or only sharpen?',
    answer: passAtKAnswer,
    from: ['17.7', 'seeds'],
  },
  { question: 'How many seeds?', answer: seedsAnswer, from: ['seeds', '17.4'] },
  { question: 'Is A better than B?', answer: betterAnswer, from: ['17.4', 'ex-7'] },
] as const;

/** The three answers as HTML, each with links to its sections; an answer that cannot be given says why and what to run. */
export function chapterAnswers(sources: AnswerSources): string {
  const items = QUESTIONS.map(({ question, answer, from }) => {
    const see = from
      .map((name) => sources[name].section)
      .map(({ id, label }) => `<a href="#${escapeHtml(id)}">${escapeHtml(label)}</a>`)
      .join(', ');
    let body: string;
    try {
      body = escapeHtml(answer(sources));
    } catch (error) {
      if (!(error instanceof Unanswered)) throw error;
      body = `<span class="missing">Not answered: ${escapeHtml(error.message)}</span>`;
    }
    return `<li><strong>${escapeHtml(question)}</strong> ${body} <span class="see">See ${see}.</span></li>`;
  });
  return `<ol class="answers">${items.join('')}</ol>`;
}
