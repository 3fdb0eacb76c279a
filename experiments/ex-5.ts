/**
 * Exercise 5. A harness canary, measured.
 *
 * Question: which fields of the harness and of the training config does the canary catch? Each
 *   harness field is changed alone; the scripted canaries (oracle, blind, stacker, gamer) play
 *   all 30 tasks under the changed training harness, and a field is caught when any canary's
 *   success rate or mean reward moves beyond its tolerance (exactly, for the deterministic
 *   policies; four binomial SEs for blind). Then step 80 of the default run as a fourth kind of
 *   canary: its held-out pass@1 under each change, against a tolerance of three SDs of one
 *   evaluation, measured from independent evaluations. Training-config fields are not read by an
 *   evaluation at all; they are listed with that reason.
 * Command: npm run ex:5 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: with a trained run, mostly the checkpoint's 16 evaluations of 32 episodes per held-out
 *   task (four for the tolerance, one per changed field); the scripted canaries take seconds.
 * Output: results/ex-5.json, results/ex-5.md, results/figures/ex-5-checkpoint-moves.svg.
 */
import { SCRIPTED_POLICIES, type HarnessInput } from '../gym/index.ts';
import { canaryNumbers } from '../analysis/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-5.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

/** One change per harness field, each away from the training harness; null where the field has no other value. */
const CHANGES: Array<{ field: string; change: HarnessInput | null; note?: string }> = [
  { field: 'split', change: { split: 'type' } },
  { field: 'heldOutType', change: { heldOutType: 'compare' } },
  { field: 'promptVersion', change: null, note: "only 'v1' exists" },
  { field: 'maxTurns', change: { maxTurns: 3 } },
  { field: 'maxEdits', change: { maxEdits: null } },
  { field: 'contextTokens', change: { contextTokens: 48 } },
  { field: 'randomizeNames', change: { randomizeNames: false } },
  { field: 'renameParams', change: { renameParams: false } },
  { field: 'varySurface', change: { varySurface: false } },
  { field: 'renamePool', change: { renamePool: 'train' } },
  { field: 'temperature', change: { temperature: 1.3 } },
  { field: 'reward', change: { reward: 'public' } },
  { field: 'maxActionTokens', change: { maxActionTokens: 2 } },
];

/** Every scripted policy on all 30 tasks under one harness. */
async function canaries(harness: HarnessInput, episodes: number, seed: string) {
  const evaluations = [];
  for (const policy of SCRIPTED_POLICIES)
    evaluations.push({
      policy,
      evaluation: await evaluateOnCores({ scripted: policy, harness, split: 'all', episodes, seed }),
    });
  return evaluations;
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const canaryEpisodes = smoke ? 1 : 8;
  const episodes = smoke ? 2 : 32;
  const repeats = smoke ? 2 : 4;
  const at = await ensureRun(run, { smoke, steps: [80] });
  const baseline = await canaries({}, canaryEpisodes, `${seed}/canary`);
  // The checkpoint's tolerance: from independent evaluations under the training harness.
  const repeated = [];
  for (let i = 0; i < repeats; i++)
    repeated.push(
      (await evaluateOnCores({ checkpoint: at(80), episodes, seed: `${seed}/checkpoint/${i}` })).passAt1,
    );
  const changes = [];
  for (const { field, change, note } of CHANGES)
    changes.push({
      field,
      change,
      ...(note !== undefined ? { note } : {}),
      canaries: change === null ? [] : await canaries(change, canaryEpisodes, `${seed}/canary`),
      checkpoint:
        change === null
          ? null
          : await evaluateOnCores({
              checkpoint: at(80),
              harness: change,
              episodes,
              seed: `${seed}/checkpoint/0`,
            }),
    });
  const numbers = canaryNumbers({ baseline, step: 80, repeated, changes });
  writeResults(outDir, {
    section: 'ex-5',
    title: 'A harness canary, measured',
    seed,
    smoke,
    config: { run, canaryEpisodes, episodes, repeats },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:5', () => main(parseRunOptions(process.argv.slice(2))));
