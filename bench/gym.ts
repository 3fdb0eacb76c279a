import { clearSandboxCache, runCanary, runTests, SANDBOX_LIMITS, sandboxWork } from '../gym/index.ts';

/**
 * Gym throughput: the canary workload (4 scripted policies x 3 harnesses x 30 tasks) through the
 * full env, cold cache then warm (target: >= 20,000 episodes/s warm on one core); then how long the
 * sandbox takes to fail a call that never returns, and how many runs a limit stopped (3).
 */
export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  clearSandboxCache();
  let started = performance.now();
  const cold = runCanary({ episodesPerTask: 10, seed: 0 });
  const coldSeconds = (performance.now() - started) / 1000;
  const coldEpisodes = cold.results.reduce((sum, row) => sum + row.episodes, 0);
  say(
    `gym canary workload, cold cache: ${coldEpisodes} episodes in ${coldSeconds.toFixed(2)} s (${Math.round(coldEpisodes / coldSeconds)} episodes/s)`,
  );

  const episodesPerTask = 100;
  started = performance.now();
  const warm = runCanary({ episodesPerTask, seed: 1 });
  const warmSeconds = (performance.now() - started) / 1000;
  const warmEpisodes = warm.results.reduce((sum, row) => sum + row.episodes, 0);
  const episodesPerSecond = Math.round(warmEpisodes / warmSeconds);
  say(
    `gym canary workload, warm cache: ${warmEpisodes} episodes in ${warmSeconds.toFixed(2)} s (${episodesPerSecond} episodes/s; target >= 20000)`,
  );

  const { firstLimitMs, confirmLimitMs } = SANDBOX_LIMITS;
  const before = sandboxWork();
  started = performance.now();
  runTests('function forever(x) { for (;;) {} }', 'forever', [{ args: [1], expected: 1 }]);
  const loopingCallSeconds = (performance.now() - started) / 1000;
  const stopped = sandboxWork().timeouts - before.timeouts;
  say(
    `a call that never returns fails after ${loopingCallSeconds.toFixed(2)} s, ${stopped} runs stopped by a limit (target: the limits, 2 x ${firstLimitMs} ms + ${confirmLimitMs} ms, 3 runs)`,
  );
  return {
    'gym/coldEpisodes': coldEpisodes,
    'gym/coldSeconds': coldSeconds,
    'gym/coldEpisodesPerSecond': Math.round(coldEpisodes / coldSeconds),
    'gym/warmSeconds': warmSeconds,
    'gym/warmEpisodesPerSecond': episodesPerSecond,
    'gym/warmEpisodes': warmEpisodes,
    'gym/loopingCallSeconds': loopingCallSeconds,
  };
}
