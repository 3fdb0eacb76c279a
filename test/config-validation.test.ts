import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldSchemas } from '../cli/args.ts';
import { parseHarness } from '../gym/index.ts';
import { parseRLConfig, RLConfigSchema, TrainSchema } from '../train/index.ts';
import { cli } from './support/cli.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';

/** The message a call throws ('' when it does not throw). */
function messageOf(call: () => unknown): string {
  try {
    call();
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('config errors: one formatter for the harness, the training config and the manifest', () => {
  it('names each bad field under where, one line, unknown keys by name', () => {
    expect(messageOf(() => parseRLConfig({ steps: 10_001, learningRat: 0.1 }))).toBe(
      'invalid config: config.steps: Too big: expected number to be <=10000; config.learningRat: unknown field',
    );
    expect(messageOf(() => parseRLConfig({ maxTurns: 0 }, { where: 'run.json' }))).toBe(
      'invalid config: run.json.maxTurns: Too small: expected number to be >=1',
    );
  });

  it('refuses more tasks a step than the split trains on, counting the split the config names', () => {
    expect(messageOf(() => parseRLConfig({ tasksPerStep: 21 }))).toBe(
      'invalid config: config.tasksPerStep 21 is more than the 20 training tasks of this split',
    );
    expect(messageOf(() => parseRLConfig({ tasksPerStep: 16, devSplit: true }, { where: 'r.json' }))).toBe(
      'invalid config: r.json.tasksPerStep 16 is more than the 15 training tasks of this split',
    );
    expect(parseRLConfig({ tasksPerStep: 15, devSplit: true }).tasksPerStep).toBe(15);
    expect(parseRLConfig({ tasksPerStep: 20 }).tasksPerStep).toBe(20);
  });

  it('lists five problems and counts the rest, and clips a long unknown key', () => {
    const message = messageOf(() =>
      parseHarness({ maxTurns: 0, maxEdits: 0, contextTokens: 0, temperature: -1, reward: 'x', split: 'y' }),
    );
    expect(message).toMatch(/^invalid harness: config\.split: .*; config\.maxTurns: .*; and 1 more \(see /);
    expect(message.split('; ')).toHaveLength(6);
    expect(messageOf(() => parseHarness({ ['k'.repeat(10_000)]: 1 }))).toBe(
      `invalid harness: config.${'k'.repeat(40)}...: unknown field (see docs/GYM.md, "Harness fields")`,
    );
  });

  it('without where, paths start at the field; a problem with the value itself says so', () => {
    const schema = z.object({ variables: z.array(z.object({ offset: z.number() })) });
    const nested = schema.safeParse({ variables: [{ offset: 'x' }] });
    expect(nested.success).toBe(false);
    expect(formatZodIssues(nested.error!.issues)).toBe(
      'variables.0.offset: Invalid input: expected number, received string',
    );
    const whole = schema.safeParse(7);
    expect(formatZodIssues(whole.error!.issues)).toBe(
      '(top level): Invalid input: expected object, received number',
    );
    expect(formatZodIssues(whole.error!.issues, { where: 'manifest' })).toBe(
      'manifest: Invalid input: expected object, received number',
    );
  });
});

describe('config bounds', () => {
  it('every numeric harness and training field has an upper bound', () => {
    expect(() => parseHarness({ maxTurns: 3001 })).toThrow(/maxTurns: Too big: expected number to be <=1000/);
    expect(() => parseHarness({ maxEdits: 1e9 })).toThrow(/maxEdits/);
    expect(() => parseHarness({ contextTokens: 1e6 })).toThrow(/contextTokens/);
    expect(() => parseHarness({ temperature: 1e9 })).toThrow(/temperature/);
    expect(() => parseHarness({ maxActionTokens: 1e6 })).toThrow(/maxActionTokens/);
    const bounded = {
      seed: 2 ** 31,
      bcSteps: 10_001,
      bcBatchSize: 257,
      bcLearningRate: 2,
      groupSize: 33,
      steps: 10_001,
      segmentSteps: 10_001,
      learningRate: 2,
      clipEpsilon: 2,
      klCoef: 11,
      entropyCoef: 11,
      updateEpochs: 65,
      maxGradNorm: 1001,
      evalEvery: 10_001,
      evalEpisodesPerTask: 257,
    };
    for (const [field, value] of Object.entries(bounded)) {
      expect(() => parseRLConfig({ [field]: value }), field).toThrow(
        new RegExp(`config\\.${field}: Too big`),
      );
    }
  });
});

describe('config reference: every field in --help and in the docs', () => {
  // The harness fields are docs/GYM.md's "Harness fields" table, the training ones docs/TRAINING.md's "Config fields".
  const docs = {
    harness: readFileSync(new URL('../docs/GYM.md', import.meta.url), 'utf8'),
    training: readFileSync(new URL('../docs/TRAINING.md', import.meta.url), 'utf8'),
  };

  it('train --help describes each field with its own description, and the docs table has a row for it', async () => {
    const { code, stdout } = await cli(['train', '--help']);
    expect(code).toBe(0);
    const help = stdout.split('\n');
    const fields = Object.entries(fieldSchemas(RLConfigSchema));
    expect(fields.map(([name]) => name)).toEqual(
      expect.arrayContaining(['demoReadTwice', 'demoSkipTest', 'devSplit', 'scaleRewards']),
    );
    for (const [name, field] of fields) {
      expect(field.description, name).toBeTruthy();
      const line = help.find((text) => text.trimStart().startsWith(`${name} `));
      expect(line, name).toBeDefined();
      expect(line!.endsWith(`: ${field.description!}`), name).toBe(true);
      const table = name in TrainSchema.shape ? docs.training : docs.harness;
      expect(table, name).toContain(`| \`${name}\` |`);
    }
  });
});
