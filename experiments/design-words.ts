/**
 * The chapter's untrained-words claim measured (docs/TRAINING-DESIGN.md, section 4.2).
 *
 * Question: "a word never seen in training stays randomly initialised, which is harmless to the
 *   answer". For each step-80 agent of study 2 (studies/design-held-out/chapter-harness), the
 *   embeddings of the words only held-out tasks use (`wordsOnlyIn`: the held-out tasks'
 *   vocabulary less the training tasks') are drawn anew from the initialiser's N(0, 0.02^2) 5
 *   times (draw k from `new Rng(RL seed).fork('untrained-words/k')`), and each redrawn agent plays
 *   the same held-out episodes as the study's step-80 evaluation a. exp:design reads the result.
 * Command: npm run exp:design-words [-- --study DIR]
 *   --study: the finished study whose step-80 agents are redrawn (default
 *   studies/design-held-out/chapter-harness); its checkpoints' weights must be here (a study folder
 *   as committed holds only their manifests), so run it where the study ran.
 * Checks, each a one-line error: the study is finished; its step-0 and step-80 checkpoints have
 *   their weights (checked before any evaluation); each agent re-evaluated reproduces the
 *   study's pass@1 on its episodes (so the pairing is exact on this machine and backend).
 *   Recorded beside the draws: how far RL moved the words' embeddings from step 0 to step 80
 *   (the mean of |change| / |row| over the words, and over every other word).
 * Runtime: 6 evaluations of one step-80 checkpoint per seed (the agent and its 5 draws).
 * Output: untrained-words.json beside the study (studies/design-held-out/untrained-words.json).
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  evaluate,
  getWeights,
  initBackend,
  loadAgent,
  withRedrawnEmbeddings,
  type Agent,
} from '../agent/index.ts';
import { wordsOnlyIn, type HarnessInput } from '../gym/index.ts';
import { mean } from '../eval/index.ts';
import { writeFileAtomic } from '../lib/atomic.ts';
import { InputError } from '../lib/errors.ts';
import { ROOT } from '../lib/paths.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, parseScriptFlags, runScript } from '../lib/script.ts';
import {
  checkpointOf,
  evaluationOf,
  finishedStudy,
  loadResults,
  measuredSplit,
  type EvalJob,
  type Plan,
  type StudyResults,
} from '../study/index.ts';
import { splitTasks } from '../train/index.ts';
import {
  UNTRAINED_WORDS_DRAWS,
  UNTRAINED_WORDS_FILE,
  UNTRAINED_WORDS_STEP,
  type UntrainedWords,
} from '../analysis/index.ts';

const STUDY = 'studies/design-held-out/chapter-harness';

/** The plan's evaluation `label` of `seed` at chapter step `step`. */
function evalJob(plan: Plan, seed: number, step: number, label: string): EvalJob {
  const job = plan.jobs.find(
    (j): j is EvalJob => j.kind === 'eval' && j.seed === seed && j.chapterStep === step && j.label === label,
  );
  if (job === undefined)
    throw new InputError(`${plan.dir}: plans no evaluation ${label} of seed ${seed} at step ${step}`);
  return job;
}

/**
 * How far training moved each word's embedding between two checkpoints, by word id:
 * |row_after - row_before| / |row_before| (Euclidean norms).
 */
function rowsMoved(before: Agent, after: Agent): number[] {
  const [from, to] = [before, after].map(
    (agent) => getWeights(agent.model)[agent.model.variableNames().indexOf('wte')]!,
  );
  const d = before.model.config.dModel;
  return before.tokenizer.words.map((_, id) => {
    let change = 0;
    let size = 0;
    for (let j = id * d; j < (id + 1) * d; j += 1) {
      change += (to![j]! - from![j]!) ** 2;
      size += from![j]! ** 2;
    }
    return Math.sqrt(change / size);
  });
}

/** The study's step-0 and step-80 checkpoints that have no weights.bin. */
function missingWeights(results: StudyResults): string[] {
  return results.seeds.flatMap((seed) =>
    [0, UNTRAINED_WORDS_STEP]
      .map((step) => join(checkpointOf(results.plan, evalJob(results.plan, seed, step, 'a')), 'weights.bin'))
      .filter((path) => !existsSync(path)),
  );
}

/** Held-out pass@1 of `agent` on evaluation `job`'s episodes, under its harness (over the checkpoint's own). */
async function playJob(plan: Plan, job: EvalJob, agent: Agent, recorded: HarnessInput): Promise<number> {
  const evaluation = await evaluate({
    agent,
    harness: { ...recorded, ...job.harness },
    split: measuredSplit(plan),
    episodes: job.episodes,
    seed: job.evalSeed,
  });
  if (evaluation.provenance.harnessHash !== job.harnessHash)
    throw new InputError(
      `${checkpointOf(plan, job)}: the harness hash ${evaluation.provenance.harnessHash} is not the plan's ${job.harnessHash}`,
    );
  return evaluation.passAt1;
}

/** One seed's row: its step-80 agent re-scored (it must give the study's pass@1), its redraws, how far its words moved. */
async function redrawSeed(
  results: StudyResults,
  seed: number,
  words: readonly string[],
): Promise<UntrainedWords['seeds'][number]> {
  const { plan } = results;
  const job = evalJob(plan, seed, UNTRAINED_WORDS_STEP, 'a');
  const study = evaluationOf(results, seed, UNTRAINED_WORDS_STEP, 'a');
  const checkpoint = checkpointOf(plan, job);
  const loaded = await loadAgent(checkpoint);
  const start = await loadAgent(checkpointOf(plan, evalJob(plan, seed, 0, 'a')));
  try {
    const { model, tokenizer } = loaded.agent;
    const ids = words.map((word) => tokenizer.id(word));
    const movedBy = rowsMoved(start.agent, loaded.agent);
    const moved = {
      redrawn: mean(ids.map((id) => movedBy[id]!)),
      others: mean(movedBy.filter((_, id) => !ids.includes(id))),
    };
    const play = (agent: Agent) => playJob(plan, job, agent, loaded.manifest.harness ?? {});
    const trained = await play(loaded.agent);
    if (trained !== study.passAt1)
      throw new InputError(
        `${checkpoint}: re-evaluated on its study's episodes it scores ${trained}, not the study's ${study.passAt1}: evaluate where the study ran (its backend was ${study.backend})`,
      );
    const redrawn: number[] = [];
    for (let draw = 0; draw < UNTRAINED_WORDS_DRAWS; draw += 1) {
      const other = withRedrawnEmbeddings(model, ids, new Rng(seed).fork(`untrained-words/${draw}`));
      try {
        redrawn.push(await play({ model: other, tokenizer }));
      } finally {
        other.dispose();
      }
    }
    console.error(
      `seed ${seed}: step-${UNTRAINED_WORDS_STEP} pass@1 ${trained.toFixed(3)}, redrawn ${redrawn.map((p) => p.toFixed(3)).join(' ')}; the words' embeddings moved ${moved.redrawn.toFixed(2)} from step 0 (the others ${moved.others.toFixed(2)})`,
    );
    return {
      seed,
      checkpointChecksum: study.checkpointChecksum,
      evalSeed: job.evalSeed,
      trained,
      redrawn,
      moved,
    };
  } finally {
    loaded.agent.model.dispose();
    start.agent.model.dispose();
  }
}

export async function main({ studyDir = join(ROOT, STUDY) }: { studyDir?: string } = {}) {
  const state = finishedStudy(studyDir);
  if (state.state !== 'finished')
    throw new InputError(`${studyDir}: ${state.state === 'absent' ? 'holds no study' : 'is not finished'}`);
  const results = loadResults(state.plan);
  const { train, heldOut } = splitTasks(results.plan.config);
  const words = wordsOnlyIn(heldOut, train);
  const missing = missingWeights(results);
  if (missing.length > 0)
    throw new InputError(
      `${studyDir}: ${missing.length} checkpoints have no weights.bin (the first ${missing[0]}); a study as committed holds only their manifests, so run exp:design-words where the study ran`,
    );
  const backend = await initBackend();
  const seeds: UntrainedWords['seeds'] = [];
  for (const seed of results.seeds) seeds.push(await redrawSeed(results, seed, words));
  const out = join(dirname(studyDir), UNTRAINED_WORDS_FILE);
  const record: UntrainedWords = {
    format: 1,
    study: relative(dirname(out), studyDir),
    step: UNTRAINED_WORDS_STEP,
    label: 'a',
    draws: UNTRAINED_WORDS_DRAWS,
    words,
    backend,
    seeds,
  };
  writeFileAtomic(out, `${JSON.stringify(record, null, 2)}\n`);
  console.error(`wrote ${relative(ROOT, out)}`);
  return record;
}

if (isMain(import.meta.url)) {
  await runScript('exp:design-words', async () => {
    const { study } = parseScriptFlags(process.argv.slice(2), { study: { type: 'string' } }, '--study DIR');
    await main(study === undefined ? {} : { studyDir: resolve(study) });
  });
}
