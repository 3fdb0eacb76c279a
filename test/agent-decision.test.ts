import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTokenizer,
  createModel,
  defaultModelConfig,
  initBackend,
  type Agent,
  type TranscriptTurn,
} from '../agent/index.ts';
import { firstEditPrefix, opProbabilitiesAtFirstEdit } from '../agent/decision.ts';
import { EDIT_OPS, makeEnv, makeTasks, trainingHarness } from '../gym/index.ts';
import { Rng } from '../lib/rng.ts';

let agent: Agent;
let turns: TranscriptTurn[];

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  const tokenizer = buildTokenizer(makeTasks('all'));
  const model = createModel(defaultModelConfig(tokenizer.words.length), new Rng('decision'));
  agent = { model, tokenizer };
  const env = makeEnv(trainingHarness(), { tasks: makeTasks('heldout') });
  const { observation } = env.reset({ seed: 7 });
  turns = [
    { observation: [...observation], action: ['read', '<end>'] },
    { observation: ['ok', 'source'], action: ['edit', 'fix_comparison', '<end>'] },
    { observation: ['applied'], action: ['submit', '<end>'] },
  ];
});

afterAll(() => agent.model.dispose());

describe('the op probabilities at the first edit', () => {
  it('reads the policy at the first edit: every word before it, then the edit itself', () => {
    expect(firstEditPrefix(turns)).toEqual([
      ...turns[0]!.observation,
      'read',
      '<end>',
      'ok',
      'source',
      'edit',
    ]);
    expect(firstEditPrefix([turns[0]!, turns[2]!])).toBeNull();
  });

  it("equal the model's full forward pass at that position (the cached session against tokenLogProbs)", () => {
    const [probabilities] = opProbabilitiesAtFirstEdit(agent, [turns], { temperature: 1 });
    const prefix = agent.tokenizer.encode(firstEditPrefix(turns)!);
    for (const op of EDIT_OPS) {
      const ids = [...prefix, agent.tokenizer.id(op)];
      const reference = tf.tidy(() => {
        const logProbs = agent.model.tokenLogProbs(tf.tensor2d([ids], [1, ids.length], 'int32'));
        return logProbs.dataSync()[ids.length - 2]!;
      });
      expect(Math.abs(probabilities![op] - Math.exp(reference)), op).toBeLessThan(1e-5);
    }
    // Shares of the whole vocabulary: the six ops hold at most all of it.
    expect(Object.values(probabilities!).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
  });

  it('is null for an episode without an edit, batch by batch, and the same wherever a transcript sits', () => {
    const many = [...Array.from({ length: 160 }, () => [turns[0]!, turns[2]!]), turns];
    const results = opProbabilitiesAtFirstEdit(agent, many, { temperature: 1 });
    expect(results.slice(0, 160).every((result) => result === null)).toBe(true);
    const alone = opProbabilitiesAtFirstEdit(agent, [turns], { temperature: 1 })[0]!;
    for (const op of EDIT_OPS) expect(Math.abs(results[160]![op] - alone[op])).toBeLessThan(1e-6);
  });

  it('at temperature 0 puts everything on the argmax; a negative temperature is refused', () => {
    const [greedy] = opProbabilitiesAtFirstEdit(agent, [turns], { temperature: 0 });
    expect(Object.values(greedy!).every((p) => p === 0 || p === 1)).toBe(true);
    expect(() => opProbabilitiesAtFirstEdit(agent, [turns], { temperature: -1 })).toThrow(/temperature/);
  });

  it('leaves no tensor behind', () => {
    const before = tf.memory().numTensors;
    opProbabilitiesAtFirstEdit(agent, [turns, turns], { temperature: 1 });
    expect(tf.memory().numTensors).toBe(before);
  });
});
