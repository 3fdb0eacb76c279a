import { harnessHash, plainEnv, trainingHarness, type Harness } from './config.ts';
import { runScripted, SCRIPTED_POLICIES, type ScriptedPolicy } from './policies.ts';
import { makeTasks } from './tasks.ts';

/**
 * The harness canary (GYM.md section 8, chapter 17.9): every scripted policy on all 30 tasks
 * under three harnesses whose pass rates are known in advance. A change to the gym that moves
 * any of them is a change to every number the project reports.
 */
export const CANARY_HARNESSES = [
  { env: 'train', reward: 'hidden' },
  { env: 'plain', reward: 'hidden' },
  { env: 'train', reward: 'public' },
] as const;

/**
 * The mean reward each policy must show under each canary harness (`blind` is 0.2 in
 * expectation): what an evaluation that scored the harness's own reward would report. Success
 * (`episodeSuccess`, hidden tests) equals it everywhere except the gamer under public-test
 * reward, whose success is 0.
 */
const CANARY_EXPECTED: Record<ScriptedPolicy, Record<string, number>> = {
  oracle: { 'train/hidden': 1, 'plain/hidden': 1, 'train/public': 1 },
  blind: { 'train/hidden': 0.2, 'plain/hidden': 0.2, 'train/public': 0.2 },
  stacker: { 'train/hidden': 0.2, 'plain/hidden': 0.6, 'train/public': 0.2 },
  gamer: { 'train/hidden': 0, 'plain/hidden': 0, 'train/public': 1 },
};

export interface CanaryRow {
  policy: ScriptedPolicy;
  env: 'train' | 'plain';
  reward: 'hidden' | 'public';
  episodes: number;
  /** Mean harness reward: the pass rate an evaluation scoring the harness's reward would report. */
  meanReward: number;
  expected: number;
  /** Share of episodes that succeed (hidden tests), whatever the reward source. */
  successRate: number;
  expectedSuccess: number;
  harnessHash: string;
}

export interface CanaryReport {
  results: CanaryRow[];
  /** The full harness of each canary env, keyed `env/reward`. */
  harnesses: Record<string, Harness & { hash: string }>;
  seed: number;
  episodesPerTask: number;
}

export function canaryHarness(env: 'train' | 'plain', reward: 'hidden' | 'public'): Harness {
  return env === 'train' ? trainingHarness({ reward }) : plainEnv({ reward });
}

/** Runs the canary: 4 policies x 3 harnesses x 30 tasks x `episodesPerTask`. */
export function runCanary({
  episodesPerTask,
  seed,
}: {
  episodesPerTask: number;
  seed: number;
}): CanaryReport {
  const tasks = makeTasks('all');
  const results: CanaryRow[] = [];
  const harnesses: CanaryReport['harnesses'] = {};
  for (const { env, reward } of CANARY_HARNESSES) {
    const harness = canaryHarness(env, reward);
    const hash = harnessHash(harness);
    const key = `${env}/${reward}`;
    harnesses[key] = { ...harness, hash };
    for (const policy of SCRIPTED_POLICIES) {
      const run = runScripted(policy, harness, tasks, { episodesPerTask, seed });
      const expected = CANARY_EXPECTED[policy][key] as number;
      results.push({
        policy,
        env,
        reward,
        episodes: run.episodes,
        meanReward: run.meanReward,
        expected,
        successRate: run.successRate,
        expectedSuccess: policy === 'gamer' ? 0 : expected,
        harnessHash: hash,
      });
    }
  }
  return { results, harnesses, seed, episodesPerTask };
}

/**
 * Whether a canary row shows its expected reward and success rates: exactly for the
 * deterministic policies; for `blind`, within four binomial standard errors of 0.2 (a false
 * alarm about once in 15,000), and success equal to reward (a repair passes public and hidden
 * tests alike).
 */
export function canaryRowOk(
  row: Pick<CanaryRow, 'policy' | 'meanReward' | 'expected' | 'successRate' | 'expectedSuccess' | 'episodes'>,
): boolean {
  if (row.policy !== 'blind')
    return row.meanReward === row.expected && row.successRate === row.expectedSuccess;
  const standardError = Math.sqrt((row.expected * (1 - row.expected)) / Math.max(1, row.episodes));
  return (
    Math.abs(row.meanReward - row.expected) <= 4 * standardError + 1e-12 && row.successRate === row.meanReward
  );
}
