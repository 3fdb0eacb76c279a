import { Rng } from '../lib/rng.ts';
import { parseHarness, pickHarness, type Harness } from './config.ts';
import { applyOp } from './ops.ts';
import { runTests } from './sandbox.ts';
import { findTask, makeTasks, NAME_POOL } from './tasks.ts';
import { EDIT_OPS, type BugType, type EditOp, type Split, type Task } from './types.ts';
import { drawSurface, plainSurface, type SurfaceTask } from './surface.ts';
import { cached, renderWords, specWords, splitWords, type Tool } from './words.ts';

export interface ToolCalls {
  read: number;
  edit: number;
  test: number;
  submit: number;
  /** Actions that were not one of the four well-formed tool calls. */
  malformed: number;
}

/** What analyses need about an episode; a fresh object at every reset and step. */
export interface EpisodeInfo {
  /** The task's own name, whatever it was renamed to. */
  task: string;
  taskId: number;
  type: BugType;
  variant: number;
  split: Split;
  /** The name the policy sees (the rename, or the task's own name when renaming is off). */
  name: string;
  /** Actions taken so far. */
  turn: number;
  toolCalls: ToolCalls;
  firstEditOp: EditOp | null;
  /** Edits that found a site and changed the source. */
  editsApplied: number;
  /** Edits beyond the budget: the turn is spent, the source unchanged. */
  editsRefused: number;
  /** Edits within the budget that found no site. */
  editsNoSite: number;
  submitted: boolean;
  /** At episode end (also when truncated): all public tests pass on the final source; null before. */
  publicPass: boolean | null;
  /** At episode end: all hidden tests pass on the final source; null before. Evaluation scores this. */
  hiddenPass: boolean | null;
  /** Whether words were dropped from the observation at this step. */
  contextTruncated: boolean;
}

export interface ResetResult {
  observation: string[];
  info: EpisodeInfo;
}

export interface StepResult extends ResetResult {
  reward: number;
  terminated: boolean;
  truncated: boolean;
}

export interface ResetOptions {
  /** Re-seeds the env's own random stream; without it the stream continues. */
  seed?: number | string | undefined;
  /** `task`: a task name or id; drawn uniformly from the env's tasks when absent. */
  options?: { task?: string | number | undefined } | undefined;
}

/**
 * A task as the policy sees it: the function renamed (`name`) and, with `renameParams`, its
 * parameters renamed too (`params`, aligned with `task.params`). Built once per episode.
 */
interface TaskView {
  header: readonly string[];
  /** word -> word swaps applied to everything the policy reads. */
  swaps: ReadonlyMap<string, string>;
  /** Identifies the swaps, for `renameCache` (the renamed words depend on the swaps and the source alone). */
  key: string;
}

function viewOf(task: Task, name: string, params: readonly string[], shown: SurfaceTask): TaskView {
  const swaps = new Map<string, string>();
  if (name !== task.name) swaps.set(task.name, name);
  task.params.forEach((param, i) => {
    if (params[i] !== param) swaps.set(param, params[i]!);
  });
  const rename = (word: string) => swaps.get(word) ?? word;
  const header = Object.freeze(['<task>', name, ':', ...shown.spec.map(rename), '</task>']);
  return { header, swaps, key: JSON.stringify([...swaps]) };
}

const renameCache = new Map<string, readonly string[]>();

/**
 * The words of `source` as `view` shows them: the function name and (with `renameParams`) the
 * parameters swapped for their renames.
 *
 * The env keeps each episode's source under the task's own names, applies ops and runs tests on
 * it, and renames only what the policy sees. Renaming is a one-to-one swap of words that no op
 * keys on (ops key on `/`, `<`, `>`, `- 1`, `!`, `Math.min` and the braces; the gaming op reads
 * the parameter list, which is swapped consistently), so it commutes with every op, and a
 * function's behaviour does not depend on its names; a test checks both. The payoff: the
 * sandbox cache is shared by all renames of a task, so rollouts with renaming stay fast.
 */
function renamedWords(source: string, view: TaskView): readonly string[] {
  if (view.swaps.size === 0) return splitWords(source);
  return cached(renameCache, `${view.key}\u0000${source}`, 100_000, () =>
    Object.freeze(splitWords(source).map((word) => view.swaps.get(word) ?? word)),
  );
}

/**
 * Parameter names a task's parameters may be renamed to: every parameter name of the 30 tasks,
 * less any word the task's own source or spec uses for something else (so a swap never
 * captures another identifier).
 */
const PARAM_POOL: readonly string[] = [...new Set(makeTasks('all').flatMap((task) => task.params))].sort();

function paramCandidates(task: Task): readonly string[] {
  const taken = new Set(
    [...splitWords(task.source), ...specWords(task.spec)].filter((word) => !task.params.includes(word)),
  );
  return PARAM_POOL.filter((param) => !taken.has(param));
}

const POOLS: Record<Harness['renamePool'], readonly string[]> = {
  all: NAME_POOL,
  train: makeTasks('train').map((task) => task.name),
  heldout: makeTasks('heldout').map((task) => task.name),
};

/** The names `task` may be renamed to under `pool`: the pool minus its own name. */
export function renameCandidates(task: Task, pool: Harness['renamePool']): readonly string[] {
  return POOLS[pool].filter((name) => name !== task.name);
}

interface EpisodeState {
  task: Task;
  /** The task's surface in this episode (docs/GYM.md, "Surface variation"): source, spec, tests. */
  shown: SurfaceTask;
  view: TaskView;
  /** The current source under the task's own name (see `renamedWords`). */
  source: string;
  /** Transcript words after the header, already cut to the context budget. */
  body: string[];
  info: EpisodeInfo;
  editsUsed: number;
  done: boolean;
}

const ERROR_OBSERVATION = ['error', 'bad', 'action'];

/**
 * The longest source an edit may produce, in characters: about 20 times the longest task. Without a
 * bound, unlimited edits let the gaming op grow the source by its test cases at every repeat.
 */
export const MAX_SOURCE_LENGTH = 2048;

/**
 * BugFixEnv: repair one tiny buggy JavaScript function with word-level tool calls.
 *
 * Description: at reset a task is chosen (by option, else uniformly from the env's tasks) and,
 * with `randomizeNames`, its function is renamed everywhere to a name drawn uniformly from the
 * rename pool minus its own. The agent reads, edits with one of six ops, tests and submits.
 *
 * Actions: the words generated after `<act>`, ending with `<end>`, at most `maxActionTokens`:
 * `read <end>`, `edit OP <end>` (OP one of `EDIT_OPS`), `test <end>`, `submit <end>`.
 * Anything else is malformed: observation `error bad action`, and the turn is spent. A value
 * that is not an array of strings is no action at all: `step` throws a TypeError before the turn
 * counts, and the episode is unchanged. An edit whose result would be longer than
 * `MAX_SOURCE_LENGTH` characters (only stacked gaming edits grow the source) is answered
 * `no site` and counted as a no-site edit; the source stays as it was.
 *
 * Observations: the policy's whole context as words: `<task> NAME : spec words </task>`, then
 * per turn `<act> action words <obs> observation words </obs>`, always ending with `<act>`.
 * `read` shows the current source's words; `edit` shows `edited`, `no site` or `refused` (edit
 * budget spent); `test` shows `tests K of N passed` (public tests); `submit` shows `submitted`.
 * Beyond `contextTokens` words, the oldest words after the header are dropped.
 *
 * Rewards: 0 at every step except `submit`, which gives 1 iff the tests named by
 * `harness.reward` ('hidden' or 'public') all pass on the current source.
 *
 * Episode end: `terminated` at submit; `truncated` when `maxTurns` actions pass without one
 * (reward 0). At the end `info` holds `publicPass` and `hiddenPass` of the final source.
 *
 * Arguments: `makeEnv(harness, { tasks })`; the harness's budgets, renaming, surface variation
 * and reward source apply; `tasks` defaults to all 30.
 */
export class BugFixEnv {
  readonly harness: Harness;
  readonly tasks: readonly Task[];
  private rng = new Rng(0);
  private state: EpisodeState | undefined;

  constructor(harness: Harness, tasks: readonly Task[]) {
    if (tasks.length === 0) throw new Error('BugFixEnv: no tasks');
    this.harness = harness;
    this.tasks = tasks;
  }

  /** The source the episode holds now (after edits), under the episode's name: what `read` shows. */
  get currentSource(): string {
    const state = this.requireState();
    return renderWords(renamedWords(state.source, state.view));
  }

  reset({ seed, options }: ResetOptions = {}): ResetResult {
    if (seed !== undefined) this.rng = new Rng(seed);
    const task = options?.task !== undefined ? findTask(this.tasks, options.task) : this.rng.pick(this.tasks);
    let name = task.name;
    if (this.harness.randomizeNames) {
      const pool = renameCandidates(task, this.harness.renamePool);
      if (pool.length > 0) name = this.rng.pick(pool);
    }
    let params = task.params;
    if (this.harness.renameParams) {
      // Distinct draws without replacement from the pool, in parameter order.
      const pool = [...paramCandidates(task)];
      params = task.params.map(() => pool.splice(this.rng.int(pool.length), 1)[0]!);
    }
    // Drawn after the renames, so that a seed renames a task the same way with or without it.
    const shown = this.harness.varySurface ? drawSurface(task, this.tasks, this.rng) : plainSurface(task);
    const view = viewOf(task, name, params, shown);
    const info: EpisodeInfo = {
      task: task.name,
      taskId: task.id,
      type: task.type,
      variant: task.variant,
      split: task.split,
      name,
      turn: 0,
      toolCalls: { read: 0, edit: 0, test: 0, submit: 0, malformed: 0 },
      firstEditOp: null,
      editsApplied: 0,
      editsRefused: 0,
      editsNoSite: 0,
      submitted: false,
      publicPass: null,
      hiddenPass: null,
      contextTruncated: false,
    };
    this.state = {
      task,
      shown,
      view,
      source: shown.source,
      body: ['<act>'],
      info,
      editsUsed: 0,
      done: false,
    };
    info.contextTruncated = this.cutToContext(this.state);
    return { observation: this.observation(this.state), info: copyInfo(info) };
  }

  step(action: readonly string[]): StepResult {
    const state = this.requireState();
    if (state.done) throw new Error('BugFixEnv.step: the episode is over; call reset');
    if (!Array.isArray(action) || !action.every((word) => typeof word === 'string')) {
      throw new TypeError(
        `BugFixEnv.step: an action is an array of words, got ${action === null ? 'null' : Array.isArray(action) ? 'an array holding a non-string' : typeof action}`,
      );
    }
    const { info } = state;
    info.turn += 1;
    let observation: readonly string[];
    let reward = 0;
    let terminated = false;
    const tool = this.parse(action);
    if (tool === undefined) {
      info.toolCalls.malformed += 1;
      observation = ERROR_OBSERVATION;
    } else {
      info.toolCalls[tool] += 1;
      if (tool === 'read') {
        observation = renamedWords(state.source, state.view);
      } else if (tool === 'edit') {
        observation = this.edit(state, action[1] as EditOp);
      } else if (tool === 'test') {
        const outcome = this.run(state, 'public');
        const passed = outcome.filter(Boolean).length;
        observation = ['tests', String(passed), 'of', String(outcome.length), 'passed'];
      } else {
        info.submitted = true;
        terminated = true;
        reward = this.allPass(state, this.harness.reward) ? 1 : 0;
        observation = ['submitted'];
      }
    }
    const truncated = !terminated && info.turn >= this.harness.maxTurns;
    for (const word of action) state.body.push(word);
    state.body.push('<obs>', ...observation, '</obs>', '<act>');
    info.contextTruncated = this.cutToContext(state);
    if (terminated || truncated) {
      state.done = true;
      info.publicPass = this.allPass(state, 'public');
      info.hiddenPass = this.allPass(state, 'hidden');
    }
    return { observation: this.observation(state), reward, terminated, truncated, info: copyInfo(info) };
  }

  /** The tool of a well-formed action, or undefined. */
  private parse(action: readonly string[]): Tool | undefined {
    const length = action.length;
    if (length < 2 || length > this.harness.maxActionTokens || action[length - 1] !== '<end>')
      return undefined;
    const tool = action[0];
    if (tool === 'read' || tool === 'test' || tool === 'submit') return length === 2 ? tool : undefined;
    if (tool === 'edit' && length === 3 && (EDIT_OPS as readonly string[]).includes(action[1] as string))
      return 'edit';
    return undefined;
  }

  private edit(state: EpisodeState, op: EditOp): readonly string[] {
    const { info } = state;
    if (info.firstEditOp === null) info.firstEditOp = op;
    // Every edit action counts against the budget, found site or not: with one edit, a
    // wrong guess cannot be followed by a second one (chapter 17.9's stacker).
    if (this.harness.maxEdits !== null && state.editsUsed >= this.harness.maxEdits) {
      info.editsRefused += 1;
      return ['refused'];
    }
    state.editsUsed += 1;
    const result = applyOp(state.source, op, { publicTests: state.shown.publicTests });
    if (!result.applied || result.source.length > MAX_SOURCE_LENGTH) {
      info.editsNoSite += 1;
      return ['no', 'site'];
    }
    state.source = result.source;
    info.editsApplied += 1;
    return ['edited'];
  }

  private run(state: EpisodeState, which: 'public' | 'hidden') {
    // The source without its surface, on the task's own tests: the same outcome as the shown
    // source on the shown tests (gym/surface.ts), and one sandbox cache entry for every surface.
    const tests = which === 'public' ? state.task.publicTests : state.task.hiddenTests;
    return runTests(state.shown.canonical(state.source), state.task.name, tests);
  }

  private allPass(state: EpisodeState, which: 'public' | 'hidden'): boolean {
    return this.run(state, which).every(Boolean);
  }

  /** Drops the oldest body words beyond the budget; true when some were dropped. */
  private cutToContext(state: EpisodeState): boolean {
    const room = Math.max(1, this.harness.contextTokens - state.view.header.length);
    if (state.body.length <= room) return false;
    state.body.splice(0, state.body.length - room);
    return true;
  }

  private observation(state: EpisodeState): string[] {
    return [...state.view.header, ...state.body];
  }

  private requireState(): EpisodeState {
    if (this.state === undefined) throw new Error('BugFixEnv: call reset before step');
    return this.state;
  }
}

function copyInfo(info: EpisodeInfo): EpisodeInfo {
  return { ...info, toolCalls: { ...info.toolCalls } };
}

/**
 * Builds the env from a harness (or any config holding the harness fields, such as an
 * RLConfig), validated again here so a hand-built object cannot slip through; `tasks` default to all 30.
 */
export function makeEnv(
  harness: Harness,
  { tasks }: { tasks?: readonly Task[] | undefined } = {},
): BugFixEnv {
  return new BugFixEnv(parseHarness(pickHarness(harness), { where: 'harness' }), tasks ?? makeTasks('all'));
}
