import { describe, expect, it } from 'vitest';
import { fastestAlternating, fastestInTurn } from '../bench/best.ts';

describe('the benchmarks take turns', () => {
  it('fastestInTurn runs the variants in turn, warm-ups first, and keeps the fastest run of each', async () => {
    const calls: string[] = [];
    const times: Record<string, number[]> = { a: [5, 3, 4, 9], b: [7, 8, 2, 6] };
    const variant = (name: string) => async () => {
      calls.push(name);
      return { name, seconds: times[name]!.shift()! };
    };
    const [a, b] = await fastestInTurn([variant('a'), variant('b')], (run) => run.seconds, {
      repeats: 3,
      warmUps: 1,
    });
    expect(calls).toEqual(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
    expect([a!.seconds, b!.seconds]).toEqual([3, 2]); // the warm-up round (5 and 7) is not timed
  });

  it('fastestAlternating is one thread (no worker) then two, in turn', async () => {
    const calls: Array<string | undefined> = [];
    const result = await fastestAlternating(
      async (worker?: string) => {
        calls.push(worker);
        return calls.length;
      },
      'worker',
      (n) => n,
      { repeats: 2 },
    );
    expect(calls).toEqual([undefined, 'worker', undefined, 'worker']);
    expect(result).toEqual({ one: 1, two: 2 });
  });
});
