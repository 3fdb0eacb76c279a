import { allCorrectAtK, episodeBootstrapCI, passAtK, taskBootstrapCI } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { timed } from './best.ts';

/**
 * Speed of the evaluation statistics: a task-level bootstrap of 10,000 replicates over 500 tasks,
 * the episode-level one, unbiased pass@k at n = 2000, and pass@k with pass^k at counts up to 2^53 - 1.
 */
export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  const rng = new Rng('bench/eval');
  const successes = Int32Array.from({ length: 500 }, () => rng.int(33));
  const counts = { successes, trials: 32 };
  taskBootstrapCI(counts, { reps: 200, rng }); // warm up the JIT

  const { value: interval, seconds: taskBootstrapSeconds } = timed(() =>
    taskBootstrapCI(counts, { reps: 10_000, rng }),
  );
  say(
    `task-level bootstrap, 10,000 reps x 500 tasks: ${taskBootstrapSeconds.toFixed(3)} s  [${interval.low.toFixed(3)}, ${interval.high.toFixed(3)}]`,
  );

  const episodeBootstrapSeconds = timed(() => episodeBootstrapCI(counts, { reps: 10_000, rng })).seconds;
  say(`episode-level bootstrap, 10,000 reps x 16,000 episodes: ${episodeBootstrapSeconds.toFixed(3)} s`);

  let started = performance.now();
  let sum = 0;
  for (let c = 0; c <= 2000; c++) sum += passAtK(2000, c, 1000);
  const passAtKMicroseconds = ((performance.now() - started) * 1000) / 2001;
  say(
    `unbiased pass@1000 at n = 2000: ${passAtKMicroseconds.toFixed(2)} us per task (checksum ${sum.toFixed(3)})`,
  );

  const extremeCounts: Array<[number, number, number]> = [
    [1e12, 5e11, 2],
    [1e12, 5e11, 5e11],
    [2 ** 53 - 1, 2 ** 52, 2 ** 52],
    [2 ** 53 - 1, 3e7, 3e8],
    [2 ** 53 - 1, 100_000, 1e9], // the longest direct product
    [1e15, 1, 1e15 - 1],
    [1e15, 1e15 - 1, 1e15],
  ];
  let extremeCountsMilliseconds = 0;
  for (const [n, c, k] of extremeCounts) {
    started = performance.now();
    passAtK(n, c, k);
    allCorrectAtK(n, c, k);
    extremeCountsMilliseconds = Math.max(extremeCountsMilliseconds, performance.now() - started);
  }
  say(
    `pass@k and pass^k at counts up to 2^53 - 1: the slowest pair ${extremeCountsMilliseconds.toFixed(2)} ms (target: well under 50)`,
  );

  return {
    taskBootstrapSeconds,
    taskBootstrapLow: interval.low,
    taskBootstrapHigh: interval.high,
    episodeBootstrapSeconds,
    passAtKMicroseconds,
    passAtKChecksum: sum,
    extremeCountsMilliseconds,
  };
}
