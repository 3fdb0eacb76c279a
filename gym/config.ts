import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../lib/json.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';
import { BUG_TYPES } from './types.ts';

/**
 * The harness: everything except the weights that changes a pass rate, as one validated object.
 *
 * RLConfig is the flat union of these fields and training's own (`z.object({ ...harnessShape,
 * ...trainShape })`), so training and evaluation read the same fields and none can silently
 * differ; training-only settings do not change the harness hash. Unknown fields are errors
 * (`.strict()`): a misspelt field silently ignored is the harness drift chapter 17.9 warns about.
 * Success is not a field: one rule for every evaluation (`episodeSuccess`), whatever the reward.
 */
/** A config field's schema: an integer, or a number, in [min, max]. */
export const integer = (min: number, max: number) => z.number().int().min(min).max(max);
export const between = (min: number, max: number) => z.number().min(min).max(max);

export const harnessShape = {
  split: z
    .enum(['variant', 'type'])
    .default('variant')
    .describe(
      "which held-out split: 'variant' holds out variants 4-5 of every type, 'type' holds out all six variants of heldOutType",
    ),
  heldOutType: z
    .enum(BUG_TYPES)
    .default('zero')
    .describe("the bug type held out under split 'type' (ignored under 'variant')"),
  promptVersion: z
    .enum(['v1'])
    .default('v1')
    .describe(
      'version of the transcript format (<task> header, <act> ... <obs> ... </obs> turns); bump it whenever the format changes',
    ),
  maxTurns: integer(1, 1000)
    .default(6)
    .describe('actions per episode; read, edit, test, submit takes 4, so 6 leaves room for two mistakes'),
  maxEdits: integer(1, 1000)
    .nullable()
    .default(1)
    .describe(
      'edit actions per episode, whether or not they find a site; null = unlimited. 1 makes stacking impossible',
    ),
  contextTokens: integer(24, 4096)
    .default(124)
    .describe(
      'words the policy sees (the model reads 128: this plus an action of up to maxActionTokens must fit); the oldest non-header words are dropped first, the task header never',
    ),
  randomizeNames: z
    .boolean()
    .default(true)
    .describe('at reset, replace the function name in source, spec and tests by one drawn from renamePool'),
  renameParams: z
    .boolean()
    .default(true)
    .describe(
      "at reset, also rename the parameters (in source and spec) to distinct names drawn from all tasks' parameter names",
    ),
  varySurface: z
    .boolean()
    .default(true)
    .describe(
      'at reset, vary the task\'s surface (parameter order, spec words, parentheses, a dead statement) keeping its bug site and behaviour; docs/GYM.md, "Surface variation"',
    ),
  renamePool: z
    .enum(['all', 'train', 'heldout'])
    .default('all')
    .describe(
      "names to draw from, minus the task's own: all 30, training-task names or held-out names (variant split)",
    ),
  temperature: between(0, 10)
    .default(1.0)
    .describe('sampling temperature of the policy; 0 = greedy (argmax per token)'),
  reward: z
    .enum(['hidden', 'public'])
    .default('hidden')
    .describe('tests that decide the reward at submit; success is always scored on hidden tests'),
  maxActionTokens: integer(2, 64)
    .default(3)
    .describe('words an action may have, <end> included (edit OP <end> is 3)'),
};

export const HarnessSchema = z.object(harnessShape).strict();

/** A parsed harness: every field present. */
export type Harness = z.infer<typeof HarnessSchema>;
/** What a caller may write: any subset of the fields. */
export type HarnessInput = z.input<typeof HarnessSchema>;

export const HARNESS_FIELDS = Object.keys(harnessShape) as Array<keyof Harness>;

/**
 * Validates a harness, filling defaults. Throws an Error whose one-line message names the bad
 * fields, each under `where` (`invalid harness: config.maxEdits: Too small: expected number to
 * be >=1; ...`), and says where to look.
 */
export function parseHarness(input: unknown, { where = 'config' } = {}): Harness {
  const result = HarnessSchema.safeParse(input ?? {});
  if (!result.success) {
    throw new Error(
      `invalid harness: ${formatZodIssues(result.error.issues, { where })} (see docs/GYM.md, "Harness fields")`,
    );
  }
  return result.data;
}

/** The harness fields of any object that has them (an RLConfig carries more). */
export function pickHarness(config: Harness): Harness {
  return Object.fromEntries(HARNESS_FIELDS.map((key) => [key, config[key]])) as Harness;
}

/** The training harness: one edit, renaming over all names, hidden-test reward. */
export function trainingHarness(overrides: HarnessInput = {}): Harness {
  return parseHarness(
    {
      maxEdits: 1,
      randomizeNames: true,
      renameParams: true,
      varySurface: true,
      renamePool: 'all',
      reward: 'hidden',
      ...overrides,
    },
    { where: 'trainingHarness' },
  );
}

/** The plain `BugFixEnv`: unlimited edits, no renaming, hidden-test reward. */
export function plainEnv(overrides: HarnessInput = {}): Harness {
  return parseHarness(
    {
      maxEdits: null,
      randomizeNames: false,
      renameParams: false,
      varySurface: false,
      reward: 'hidden',
      ...overrides,
    },
    { where: 'plainEnv' },
  );
}

/**
 * A stable 12-hex-digit id of the harness fields (key-sorted JSON, sha256), recorded next to
 * every number so that two numbers from different harnesses are never compared by accident.
 */
export function harnessHash(harness: Harness): string {
  return createHash('sha256')
    .update(canonicalJson(pickHarness(harness)))
    .digest('hex')
    .slice(0, 12);
}
