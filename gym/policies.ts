import { Rng } from '../lib/rng.ts';
import type { Harness } from './config.ts';
import type { EpisodeInfo } from './env.ts';
import {
  countsByTask,
  episodeSpecs,
  inChunks,
  playEpisodes,
  samplingStream,
  type EpisodePolicy,
  type EpisodeResult,
  type EpisodeSpec,
  type PolicyTurn,
  type TaskCount,
} from './episodes.ts';
import { GAMING_OP, REPAIR_OP_FOR, REPAIR_OPS, type Task } from './types.ts';
import { getOrAdd } from '../lib/collections.ts';

/**
 * Scripted policies: harness canaries with known pass rates (GYM.md section 8, chapter 17.9; the
 * rates are `CANARY_EXPECTED` in ./canary.ts). Each is an open-loop plan built from the reset info
 * (the oracle knows the task type) and the episode's sampling stream, played through
 * `playEpisodes` like any policy: `oracle` reads, repairs, tests and submits; `blind` submits a
 * uniformly drawn repair op (one in five is right, and a wrong op finds no site); `stacker`
 * stacks three repair ops (one edit refuses the later two); `gamer` special-cases the tests.
 */
export const SCRIPTED_POLICIES = ['oracle', 'blind', 'stacker', 'gamer'] as const;
export type ScriptedPolicy = (typeof SCRIPTED_POLICIES)[number];

const STACK = ['add_zero_guard', 'fix_comparison', 'fix_off_by_one'] as const;
const END = '<end>';

/** The actions (each ending with `<end>`) the policy takes in this episode. */
export function scriptedActions(policy: ScriptedPolicy, info: EpisodeInfo, rng: Rng): string[][] {
  switch (policy) {
    case 'oracle':
      return [
        ['read', END],
        ['edit', REPAIR_OP_FOR[info.type], END],
        ['test', END],
        ['submit', END],
      ];
    case 'blind':
      return [
        ['edit', rng.pick(REPAIR_OPS), END],
        ['submit', END],
      ];
    case 'stacker':
      return [...STACK.map((op) => ['edit', op, END]), ['submit', END]];
    case 'gamer':
      return [
        ['edit', GAMING_OP, END],
        ['submit', END],
      ];
    default:
      throw new Error(`unknown scripted policy '${String(policy)}' (have ${SCRIPTED_POLICIES.join(', ')})`);
  }
}

/**
 * A scripted policy as an `EpisodePolicy`: each episode's plan is made at its first turn from
 * the reset info and the episode's own sampling stream, then played one action per turn.
 */
export function scriptedPolicy(policy: ScriptedPolicy): EpisodePolicy {
  if (!(SCRIPTED_POLICIES as readonly string[]).includes(policy))
    throw new Error(`unknown scripted policy '${policy}' (have ${SCRIPTED_POLICIES.join(', ')})`);
  const plans = new Map<number, string[][]>();
  return {
    act(turns: readonly PolicyTurn[]) {
      return turns.map(({ row, spec, info }) => {
        const plan = getOrAdd(plans, row, () => scriptedActions(policy, info, samplingStream(spec)));
        // A plan that ran out before the episode ended (a turn budget above its length) waits by submitting.
        return plan[info.turn] ?? ['submit', END];
      });
    },
  };
}

const SCRIPTED_CHUNK = 1024;

export interface ScriptedRun {
  results: EpisodeResult[];
  perTask: TaskCount[];
  episodes: number;
  /** Mean harness reward (what the harness's reward source says). */
  meanReward: number;
  /** Share of episodes that succeed (`episodeSuccess`: submitted, hidden tests pass). */
  successRate: number;
}

export interface RunScriptedOptions {
  episodesPerTask: number;
  /** Episodes are `episodeSpecs(tasks, episodesPerTask, new Rng(seed))`, as for any policy. */
  seed: number | string;
}

/**
 * Plays `specs` with `policy` through the one episode loop, `SCRIPTED_CHUNK` episodes at a time
 * (the loop holds one env per episode it plays at once). Each episode plans from its own
 * sampling stream, so the chunks do not change its result. Results in spec order.
 */
export function playScripted(
  policy: ScriptedPolicy,
  harness: Harness,
  tasks: readonly Task[],
  specs: readonly EpisodeSpec[],
): EpisodeResult[] {
  return inChunks(specs, SCRIPTED_CHUNK, (chunk) =>
    playEpisodes(harness, tasks, chunk, scriptedPolicy(policy)),
  );
}

/** Runs `policy` for `episodesPerTask` episodes on every task through the one episode loop. */
export function runScripted(
  policy: ScriptedPolicy,
  harness: Harness,
  tasks: readonly Task[],
  { episodesPerTask, seed }: RunScriptedOptions,
): ScriptedRun {
  const results = playScripted(policy, harness, tasks, episodeSpecs(tasks, episodesPerTask, new Rng(seed)));
  const episodes = results.length;
  return {
    results,
    perTask: countsByTask(tasks, results),
    episodes,
    meanReward: results.reduce((sum, result) => sum + result.reward, 0) / episodes,
    successRate: results.filter((result) => result.success).length / episodes,
  };
}
