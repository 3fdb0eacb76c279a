import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  harnessHash,
  HarnessSchema,
  harnessShape,
  makeEnv,
  parseHarness,
  plainEnv,
  trainingHarness,
} from '../gym/index.ts';

describe('harness config', () => {
  it('fills every field with a documented default (the training harness)', () => {
    const harness = parseHarness({});
    expect(harness).toEqual({
      split: 'variant',
      heldOutType: 'zero',
      promptVersion: 'v1',
      maxTurns: 6,
      maxEdits: 1,
      contextTokens: 124,
      randomizeNames: true,
      renameParams: true,
      varySurface: true,
      renamePool: 'all',
      temperature: 1,
      reward: 'hidden',
      maxActionTokens: 3,
    });
    for (const [field, schema] of Object.entries(harnessShape))
      expect(schema.description, field).toBeTruthy();
    expect(trainingHarness()).toEqual(harness);
    expect(plainEnv()).toMatchObject({
      maxEdits: null,
      randomizeNames: false,
      renameParams: false,
      reward: 'hidden',
    });
  });

  it('names the field in every error: unknown field, wrong type, negative budget', () => {
    expect(() => parseHarness({ maxTurn: 6 })).toThrow(/config\.maxTurn: unknown field/);
    expect(() => parseHarness({ randomizeNames: 'yes' })).toThrow(
      /config\.randomizeNames: .*expected boolean/,
    );
    expect(() => parseHarness({ maxEdits: -1 })).toThrow(/config\.maxEdits: .*>=1/);
    expect(() => parseHarness({ maxTurns: 0 }, { where: 'eval.harness' })).toThrow(
      /eval\.harness\.maxTurns: /,
    );
    expect(() => parseHarness({ reward: 'both' })).toThrow(/config\.reward: /);
    expect(() => parseHarness({ temperature: -0.5 })).toThrow(/config\.temperature: /);
    const message = (() => {
      try {
        parseHarness({ maxTurns: 0, extra: 1 });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toBe(
      'invalid harness: config.maxTurns: Too small: expected number to be >=1; config.extra: unknown field (see docs/GYM.md, "Harness fields")',
    );
    expect(() => makeEnv({ ...trainingHarness(), maxTurns: 0 })).toThrow(/harness\.maxTurns/);
  });

  it('lets the training config extend the harness shape and still be used by makeEnv', () => {
    const RLConfig = z
      .object({
        ...harnessShape,
        train: z
          .object({ steps: z.number().default(80) })
          .strict()
          .default({ steps: 80 }),
      })
      .strict();
    const config = RLConfig.parse({ maxTurns: 5 });
    expect(makeEnv(config).harness.maxTurns).toBe(5);
    expect(harnessHash(config)).toBe(harnessHash(parseHarness({ maxTurns: 5 })));
    expect(HarnessSchema.safeParse({ train: {} }).success).toBe(false);
  });

  it('hashes the harness fields stably, independent of key order, sensitive to any value', () => {
    const harness = trainingHarness();
    const reversed = Object.fromEntries(Object.entries(harness).reverse()) as typeof harness;
    expect(harnessHash(reversed)).toBe(harnessHash(harness));
    expect(harnessHash(harness)).toMatch(/^[0-9a-f]{12}$/);
    expect(harnessHash(trainingHarness({ temperature: 0.7 }))).not.toBe(harnessHash(harness));
    expect(harnessHash(plainEnv())).not.toBe(harnessHash(harness));
  });
});
