import { Rng } from '../lib/rng.ts';
import { parseHarness, pickHarness, type Harness } from './config.ts';
import { BugFixEnv, type EpisodeInfo, type StepResult } from './env.ts';
import type { BugType, EditOp, Task } from './types.ts';

/**
 * The one episode loop of the project, and the one seeding scheme and success rule it uses.
 *
 * Every evaluation (the `eval` command, training's held-out `evalPass`, the experiments) and
 * every canary run plays its episodes through `playEpisodes`, whatever plays them: the
 * transformer policy (agent/rollout.ts) or a scripted policy (gym/policies.ts).
 *
 * Seeding: episode i of task j is `episodeSpec(task, i, rng.fork(name/i))`: its env seed
 * (renames, task draws) and the key of its own sampling stream both derive from that fork, so
 * episode i of task j draws the same numbers whichever policy plays it. Two checkpoints
 * evaluated with one seed see the same renamed tasks: common random numbers (chapter 17.4).
 */

/** One episode to play: plain data, so it plays the same in a worker thread. */
export interface EpisodeSpec {
  task: string;
  /** The episode's index among its task's episodes (the result file's `sample`). */
  sample: number;
  envSeed: number;
  /** Key of the policy's own sampling stream for this episode (`new Rng(samplingKey)`). */
  samplingKey: string;
}

/** Episode `sample` of `task`, whose env seed and sampling stream both derive from `stream`. */
function episodeSpec(task: string, sample: number, stream: Rng): EpisodeSpec {
  return { task, sample, envSeed: stream.fork('env').uint32(), samplingKey: stream.fork('tokens').key };
}

/** `episodes` episodes of each task, task-major: episode i of task j uses `rng.fork(name/i)`. */
export function episodeSpecs(tasks: readonly Task[], episodes: number, rng: Rng): EpisodeSpec[] {
  if (!Number.isInteger(episodes) || episodes < 1)
    throw new RangeError(`episodeSpecs: episodes must be a positive integer, got ${episodes}`);
  const specs: EpisodeSpec[] = [];
  for (const task of tasks) {
    for (let i = 0; i < episodes; i += 1)
      specs.push(episodeSpec(task.name, i, rng.fork(`${task.name}/${i}`)));
  }
  return specs;
}

/**
 * The success rule, the only one: the episode submitted and its final source passes the hidden
 * tests. It does not depend on the harness's reward source: an evaluation that scored the
 * training reward instead would count the gaming op's special cases as repairs (chapter 17.9).
 */
export function episodeSuccess(info: Pick<EpisodeInfo, 'submitted' | 'hiddenPass'>): boolean {
  return info.submitted && info.hiddenPass === true;
}

/** What one episode did: everything the counts, the result files and chapter 17's analyses read. */
export interface EpisodeResult {
  task: string;
  type: BugType;
  sample: number;
  envSeed: number;
  samplingKey: string;
  /** The function name the policy saw (the rename, or the task's own name). */
  shownName: string;
  /** `episodeSuccess`: submitted and the final source passes the hidden tests. */
  success: boolean;
  /** The harness reward at the end (hidden or public tests, as the harness says). */
  reward: number;
  submitted: boolean;
  /** Final source against the public / hidden tests, whether or not the episode submitted. */
  publicPass: boolean;
  hiddenPass: boolean;
  firstEditOp: EditOp | null;
  turns: number;
  readCalls: number;
  editsRefused: number;
  malformed: number;
}

function episodeResult(spec: EpisodeSpec, final: Pick<StepResult, 'reward' | 'info'>): EpisodeResult {
  const { info } = final;
  return {
    task: spec.task,
    type: info.type,
    sample: spec.sample,
    envSeed: spec.envSeed,
    samplingKey: spec.samplingKey,
    shownName: info.name,
    success: episodeSuccess(info),
    reward: final.reward,
    submitted: info.submitted,
    publicPass: info.publicPass === true,
    hiddenPass: info.hiddenPass === true,
    firstEditOp: info.firstEditOp,
    turns: info.turn,
    readCalls: info.toolCalls.read,
    editsRefused: info.editsRefused,
    malformed: info.toolCalls.malformed,
  };
}

/** A row still playing, as a policy sees it. */
export interface PolicyTurn {
  /** Index of the episode in the batch (its spec). */
  row: number;
  spec: EpisodeSpec;
  /** The env's observation: the policy's whole context as words. */
  observation: readonly string[];
  info: EpisodeInfo;
}

/**
 * Anything that plays episodes: asked once per turn for one action (a word list ending with
 * `<end>`) per row still playing. `finish` hears each episode's last step.
 */
export interface EpisodePolicy {
  act(turns: readonly PolicyTurn[]): Array<readonly string[]>;
  finish?(row: number, final: StepResult): void;
}

/**
 * Plays every spec to its end, all rows in lockstep (one `act` call per turn for the rows still
 * playing). Results come back in spec order.
 */
export function playEpisodes(
  harness: Harness,
  tasks: readonly Task[],
  specs: readonly EpisodeSpec[],
  policy: EpisodePolicy,
): EpisodeResult[] {
  // Validated once for the whole batch; every episode gets its own env (its own stream).
  const checked = parseHarness(pickHarness(harness), { where: 'harness' });
  const envs = specs.map(() => new BugFixEnv(checked, tasks));
  const turns: PolicyTurn[] = specs.map((spec, row) => {
    const { observation, info } = envs[row]!.reset({ seed: spec.envSeed, options: { task: spec.task } });
    return { row, spec, observation, info };
  });
  const results: Array<EpisodeResult | undefined> = specs.map(() => undefined);
  let active = turns;
  while (active.length > 0) {
    const actions = policy.act(active);
    if (actions.length !== active.length)
      throw new Error(`playEpisodes: the policy gave ${actions.length} actions for ${active.length} rows`);
    const next: PolicyTurn[] = [];
    active.forEach((turn, k) => {
      const step = envs[turn.row]!.step(actions[k] as readonly string[]);
      if (step.terminated || step.truncated) {
        results[turn.row] = episodeResult(turn.spec, step);
        policy.finish?.(turn.row, step);
      } else {
        next.push({ row: turn.row, spec: turn.spec, observation: step.observation, info: step.info });
      }
    });
    active = next;
  }
  return results as EpisodeResult[];
}

/** Successes out of episodes on one task: the one shape of per-task counts. */
export interface TaskCount {
  task: number;
  name: string;
  type: BugType;
  successes: number;
  episodes: number;
}

/** Per-task success counts of `results`, in the order of `tasks` (tasks with no episode are left out). */
export function countsByTask(
  tasks: readonly Task[],
  results: readonly Pick<EpisodeResult, 'task' | 'success'>[],
): TaskCount[] {
  const byName = new Map(
    tasks.map((task) => [
      task.name,
      { task: task.id, name: task.name, type: task.type, successes: 0, episodes: 0 },
    ]),
  );
  for (const result of results) {
    const count = byName.get(result.task);
    if (count === undefined)
      throw new Error(`countsByTask: episode of task '${result.task}', which is not among the tasks`);
    count.episodes += 1;
    if (result.success) count.successes += 1;
  }
  return [...byName.values()].filter((count) => count.episodes > 0);
}

/** How often each op was the first edit ('(none)': the episode never edited). */
export function firstEditCounts(
  results: readonly Pick<EpisodeResult, 'firstEditOp'>[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const op = result.firstEditOp ?? '(none)';
    counts[op] = (counts[op] ?? 0) + 1;
  }
  return counts;
}

/** `play` on `size` specs at a time, the results in spec order. */
export function inChunks<R>(
  specs: readonly EpisodeSpec[],
  size: number,
  play: (chunk: readonly EpisodeSpec[]) => R[],
): R[] {
  const results: R[] = [];
  for (let start = 0; start < specs.length; start += size)
    results.push(...play(specs.slice(start, start + size)));
  return results;
}

/** A fresh sampling stream per episode, as every policy uses it. */
export function samplingStream(spec: EpisodeSpec): Rng {
  return new Rng(spec.samplingKey);
}
