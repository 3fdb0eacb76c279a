import {
  countsByTask,
  devTasks,
  episodeSpecs,
  harnessHash,
  makeTasks,
  parseHarness,
  playScripted,
  splitOptions,
  type EpisodeResult,
  type Harness,
  type HarnessInput,
  type ScriptedPolicy,
  type Task,
  type TaskCount,
} from '../gym/index.ts';
import { Rng } from '../lib/rng.ts';
import { projectVersion } from '../lib/version.ts';
import { initBackend, recordedBackend, type BackendPreference } from './backend.ts';
import { loadAgent } from './load.ts';
import { rollout, transcriptTurns, type Agent, type Play, type TranscriptTurn } from './rollout.ts';

/** Who plays: a loaded agent, a checkpoint folder, or a scripted canary policy. */
export type Player =
  | { agent: Agent; checkpoint?: undefined; scripted?: undefined }
  | { checkpoint: string; agent?: undefined; scripted?: undefined }
  | { scripted: ScriptedPolicy; agent?: undefined; checkpoint?: undefined };

export type EvaluateOptions = Player & {
  /**
   * The harness: these fields over the checkpoint's recorded harness (for a checkpoint), else
   * over the defaults (the training harness). Validated; an unknown field is an error.
   */
  harness?: HarnessInput | undefined;
  /** The tasks to play; default `split` under the harness's split. */
  tasks?: readonly Task[] | undefined;
  /** 'dev': the development split, variant 3 of every training type (`devTasks`). */
  split?: 'heldout' | 'train' | 'all' | 'dev' | undefined;
  episodes: number;
  seed: number | string;
  /**
   * Keep each episode's transcript on its record (`transcript`: the rollout's own `Transcript`,
   * decoded to words, turn by turn); a checkpoint's or an agent's only, a scripted policy
   * records none. Off by default: it makes a result file about 2.7 times as large.
   */
  transcripts?: boolean | undefined;
  /** Backend to start when none runs yet (checkpoints only). */
  backend?: BackendPreference | undefined;
  /** Plays the specs instead of the one-thread `rollout` (training passes its two-core rollout). */
  play?: Play | undefined;
};

export interface Provenance {
  harness: Harness;
  harnessHash: string;
  /** 'checkpoint', 'agent' (an in-memory model) or 'scripted:NAME'. */
  player: string;
  checkpoint: { path: string; step: number | null; checksum: string } | null;
  seed: number | string;
  episodesPerTask: number;
  tasks: string[];
  /** tfjs backend that ran the policy; null for a scripted policy. */
  backend: string | null;
  packageVersion: string;
}

/** An episode's result, with its transcript when the evaluation was asked to keep them. */
export interface EvaluatedEpisode extends EpisodeResult {
  transcript?: TranscriptTurn[];
}

export interface Evaluation {
  perTask: TaskCount[];
  /** One per episode, task-major in the order of the tasks, then by sample index. */
  records: EvaluatedEpisode[];
  /** Mean over tasks of successes / episodes. */
  passAt1: number;
  provenance: Provenance;
}

/**
 * The one way to evaluate an agent (chapter 17.1): play `episodes` episodes of each task under
 * one harness and count successes (`episodeSuccess`) per task. Every evaluation plays through
 * `playEpisodes` with `episodeSpecs`' seeding (gym/episodes.ts), so two checkpoints evaluated with
 * one seed are paired episode by episode (common random numbers).
 *
 * @example
 *   const base = await evaluate({ checkpoint: 'runs/default/step-0', episodes: 32, seed: 1 });
 *   const hot = await evaluate({ checkpoint: 'runs/default/step-80', harness: { temperature: 1.3 }, episodes: 32, seed: 1 });
 */
export async function evaluate(options: EvaluateOptions): Promise<Evaluation> {
  const { episodes, seed } = options;
  if (!Number.isInteger(episodes) || episodes < 1)
    throw new RangeError(`evaluate: episodes must be a positive integer, got ${episodes}`);
  if (options.transcripts === true && options.scripted !== undefined)
    throw new RangeError('evaluate: a scripted policy records no transcript');
  let agent = options.agent;
  let checkpoint: Provenance['checkpoint'] = null;
  let recorded: unknown = {};
  if (options.checkpoint !== undefined) {
    await initBackend({ preference: options.backend ?? 'auto' });
    const loaded = await loadAgent(options.checkpoint);
    agent = loaded.agent;
    const step = loaded.manifest.step;
    checkpoint = {
      path: options.checkpoint,
      step: typeof step === 'number' ? step : null,
      checksum: loaded.manifest.checksum,
    };
    recorded = loaded.manifest.harness ?? {};
  }
  try {
    const base = parseHarness(recorded, {
      where: options.checkpoint !== undefined ? `${options.checkpoint}/manifest.json: harness` : 'harness',
    });
    const harness = parseHarness({ ...base, ...options.harness }, { where: 'harness' });
    const split = options.split ?? 'heldout';
    const tasks =
      options.tasks ??
      (split === 'dev' ? devTasks(splitOptions(harness)) : makeTasks(split, splitOptions(harness)));
    if (tasks.length === 0) throw new RangeError('evaluate: no tasks');
    const specs = episodeSpecs(tasks, episodes, new Rng(seed));
    let records: EvaluatedEpisode[];
    if (options.scripted !== undefined) {
      records = playScripted(options.scripted, harness, tasks, specs);
    } else {
      const player = agent as Agent;
      const played =
        options.play !== undefined
          ? await options.play(player, harness, tasks, specs)
          : rollout(player, harness, tasks, specs);
      // Each record stripped to its result (the tokens are training data, not an evaluation's),
      // with its transcript in words when asked for.
      records = played.map(({ tokens, actionMask, oldPerTokenLogps: _logps, ...result }) =>
        options.transcripts === true
          ? { ...result, transcript: transcriptTurns({ tokens, actionMask }, player.tokenizer) }
          : result,
      );
    }
    const perTask = countsByTask(tasks, records);
    return {
      perTask,
      records,
      passAt1: perTask.reduce((sum, { successes, episodes: n }) => sum + successes / n, 0) / perTask.length,
      provenance: {
        harness,
        harnessHash: harnessHash(harness),
        player:
          options.scripted !== undefined
            ? `scripted:${options.scripted}`
            : checkpoint !== null
              ? 'checkpoint'
              : 'agent',
        checkpoint,
        seed,
        episodesPerTask: episodes,
        tasks: tasks.map((task) => task.name),
        backend: options.scripted !== undefined ? null : (recordedBackend() ?? null),
        packageVersion: projectVersion(),
      },
    };
  } finally {
    if (options.checkpoint !== undefined) agent?.model.dispose();
  }
}
