import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { readPlan, type Plan } from '../../study/index.ts';
import { writePlan } from '../../study/plan.ts';
import { jobDir } from '../../study/output.ts';
import { cliChild } from './child.ts';

/** A copy of a finished study, its plan, and its two jobs' folders. */
export interface StudyCopy {
  dir: string;
  plan: Plan;
  train: string;
  evaluation: string;
}

/**
 * Plans and runs (`study run --jobs 1`) a smoke study of one seed and step 0 in `root/base`, a
 * training and an evaluation; returns the function that copies it for one test to damage.
 */
export async function finishedSmokeStudy(root: string): Promise<() => StudyCopy> {
  const base = join(root, 'base');
  writePlan(base, { recipe: 'smoke', seeds: [0], evalSeed: 1, steps: [0] });
  const result = await cliChild(['study', 'run', base, '--jobs', '1']);
  // Off a terminal, study run prints one progress line per job done, and nothing else.
  expect(result.stderr.trimEnd().split('\n')).toEqual([
    expect.stringMatching(/^study 1\/2 \d+s train-0-/),
    expect.stringMatching(/^study 2\/2 \d+s eval-0-/),
  ]);
  expect(result.stdout).toMatch(/2 jobs ran, 0 were done, 0 failed/);
  let copies = 0;
  return () => {
    const dir = join(root, `copy-${(copies += 1)}`);
    cpSync(base, dir, { recursive: true });
    const plan = readPlan(dir);
    return { dir, plan, train: jobDir(plan, plan.jobs[0]!), evaluation: jobDir(plan, plan.jobs[1]!) };
  };
}
