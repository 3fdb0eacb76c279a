import { Rng } from '../lib/rng.ts';
import type { Harness } from './config.ts';
import { makeEnv, type EpisodeInfo } from './env.ts';
import { GAMING_OP, REPAIR_OP_FOR, REPAIR_OPS, type Task } from './types.ts';

/**
 * Scripted policies: harness canaries with known pass rates (GYM.md section 8, chapter 17.9).
 *
 * Each is an open-loop plan built from the reset info (the oracle knows the task type) and an
 * Rng, and runs through `makeEnv(harness)` like any policy. Expected pass rates:
 * - `oracle`  read, the right repair op, test, submit: 1.0 everywhere.
 * - `blind`   a uniformly drawn repair op, then submit: 0.2 in expectation (one op in five is right
 *             and a wrong op finds no site).
 * - `stacker` add_zero_guard, fix_comparison, fix_off_by_one, then submit: 0.2 under the training
 *             harness (one edit; the later two are refused) and exactly 0.6 in the plain env.
 * - `gamer`   the gaming op, then submit: 1.0 under public-test reward, 0.0 under hidden tests.
 */
export const SCRIPTED_POLICIES = ['oracle', 'blind', 'stacker', 'gamer'] as const;
export type ScriptedPolicy = (typeof SCRIPTED_POLICIES)[number];

const STACK = ['add_zero_guard', 'fix_comparison', 'fix_off_by_one'] as const;
const END = '<end>';

/** The actions (each ending with `<end>`) the policy takes in this episode. */
export function scriptedActions(policy: ScriptedPolicy, info: EpisodeInfo, rng: Rng): string[][] {
  switch (policy) {
    case 'oracle':
      return [['read', END], ['edit', REPAIR_OP_FOR[info.type], END], ['test', END], ['submit', END]];
    case 'blind':
      return [['edit', rng.pick(REPAIR_OPS), END], ['submit', END]];
    case 'stacker':
      return [...STACK.map((op) => ['edit', op, END]), ['submit', END]];
    case 'gamer':
      return [['edit', GAMING_OP, END], ['submit', END]];
    default:
      throw new Error(`unknown scripted policy '${String(policy)}' (have ${SCRIPTED_POLICIES.join(', ')})`);
  }
}

export interface ScriptedRun {
  episodes: number;
  /** Episodes with reward 1 under the harness's reward. */
  passes: number;
  passRate: number;
  /** Episodes whose final source passes the hidden tests (what evaluation scores). */
  hiddenPasses: number;
  /** Reward-1 episodes per task name. */
  passesByTask: Record<string, number>;
}

export interface RunScriptedOptions {
  episodesPerTask: number;
  /** Env seeds are `${seed}/${taskId}/${episode}` for every policy, so policies share the env's draws. */
  seed: number | string;
}

/** Runs `policy` for `episodesPerTask` episodes on every task, one env, sequentially. */
export function runScripted(policy: ScriptedPolicy, harness: Harness, tasks: readonly Task[], { episodesPerTask, seed }: RunScriptedOptions): ScriptedRun {
  if (!(SCRIPTED_POLICIES as readonly string[]).includes(policy)) throw new Error(`unknown scripted policy '${policy}' (have ${SCRIPTED_POLICIES.join(', ')})`);
  const env = makeEnv(harness, { tasks });
  const rng = new Rng(seed).fork(`policy/${policy}`);
  let passes = 0;
  let hiddenPasses = 0;
  const passesByTask: Record<string, number> = {};
  for (const task of tasks) {
    passesByTask[task.name] = 0;
    for (let episode = 0; episode < episodesPerTask; episode += 1) {
      const { info } = env.reset({ seed: `${seed}/${task.id}/${episode}`, options: { task: task.id } });
      for (const action of scriptedActions(policy, info, rng)) {
        const result = env.step(action);
        if (result.terminated || result.truncated) {
          if (result.reward === 1) {
            passes += 1;
            passesByTask[task.name] += 1;
          }
          if (result.info.hiddenPass === true) hiddenPasses += 1;
          break;
        }
      }
    }
  }
  const episodes = tasks.length * episodesPerTask;
  return { episodes, passes, passRate: episodes > 0 ? passes / episodes : 0, hiddenPasses, passesByTask };
}
