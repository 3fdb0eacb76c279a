import { clearSandboxCache, runCanary, runTests, SANDBOX_LIMITS, sandboxWork } from '../gym/index.ts';
import { timed } from './best.ts';

/** The canary workload's episodes, their seconds and their rate. */
function canary(episodesPerTask: number, seed: number) {
  const { value, seconds } = timed(() => runCanary({ episodesPerTask, seed }));
  const episodes = value.results.reduce((sum, row) => sum + row.episodes, 0);
  return { episodes, seconds, perSecond: Math.round(episodes / seconds) };
}

/**
 * Gym throughput: the canary workload (4 scripted policies x 3 harnesses x 30 tasks) through the
 * full env, cold cache then warm (target: >= 20,000 episodes/s warm on one core); then how long the
 * sandbox takes to fail a call that never returns, and how many runs a limit stopped (3).
 */
export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  clearSandboxCache();
  const cold = canary(10, 0);
  say(
    `gym canary workload, cold cache: ${cold.episodes} episodes in ${cold.seconds.toFixed(2)} s (${cold.perSecond} episodes/s)`,
  );
  const warm = canary(100, 1);
  say(
    `gym canary workload, warm cache: ${warm.episodes} episodes in ${warm.seconds.toFixed(2)} s (${warm.perSecond} episodes/s; target >= 20000)`,
  );

  const before = sandboxWork();
  const looping = timed(() =>
    runTests('function forever(x) { for (;;) {} }', 'forever', [{ args: [1], expected: 1 }]),
  );
  const stopped = sandboxWork().timeouts - before.timeouts;
  say(
    `a call that never returns fails after ${looping.seconds.toFixed(2)} s, ${stopped} runs stopped by a limit (target: the limits, 2 x ${SANDBOX_LIMITS.firstLimitMs} ms + ${SANDBOX_LIMITS.confirmLimitMs} ms, 3 runs)`,
  );
  return {
    'gym/coldEpisodes': cold.episodes,
    'gym/coldSeconds': cold.seconds,
    'gym/coldEpisodesPerSecond': cold.perSecond,
    'gym/warmSeconds': warm.seconds,
    'gym/warmEpisodesPerSecond': warm.perSecond,
    'gym/warmEpisodes': warm.episodes,
    'gym/loopingCallSeconds': looping.seconds,
  };
}
