import { spawnSync, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPlan } from '../study/index.ts';
import { evalSeedOf, parseSeeds, planJobs, writePlan } from '../study/plan.ts';
import { slotsOf } from '../study/runner.ts';
import { cliChild } from './support/child.ts';
import { cli } from './support/cli.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'tinyagent.js');
const root = mkdtempSync(join(tmpdir(), 'tinyagent-study-plan-'));
let counter = 0;
const fresh = () => join(root, `s${(counter += 1)}`);

describe('study plan', () => {
  it('names every job by its inputs: the same plan twice gives the same ids, another seed or thread count others', () => {
    const a = writePlan(fresh(), { recipe: 'smoke', seeds: [0, 1], evalSeed: 1 });
    const b = writePlan(fresh(), { recipe: 'smoke', seeds: [0, 1], evalSeed: 1 });
    expect(b.jobs.map((job) => job.id)).toEqual(a.jobs.map((job) => job.id));
    const twoThreads = writePlan(fresh(), { recipe: 'smoke', seeds: [0, 1], evalSeed: 1, threads: 2 });
    expect(twoThreads.jobs[0]!.id).not.toBe(a.jobs[0]!.id);
    const otherEval = planJobs({ ...a, evalSeed: 2 });
    expect(otherEval[0]!.id).toBe(a.jobs[0]!.id); // a training does not depend on the eval seed
    expect(otherEval[2]!.id).not.toBe(a.jobs[2]!.id);
    // trainings first, then each seed's 9 + 2 + 2 evaluations, each after its training
    expect(a.jobs.map((job) => job.kind)).toEqual(['train', 'train', ...Array(26).fill('eval')]);
    expect(
      a.jobs.filter((job) => job.kind === 'eval' && job.seed === 1).every((job) => job.dependsOn[0] === 1),
    ).toBe(true);
  });

  it('--jobs counts CPU slots: a training takes one, or its threads of the free slots when it is the only job ready; an evaluation one', () => {
    const two = writePlan(fresh(), { recipe: 'smoke', seeds: [0], evalSeed: 1, threads: 2, steps: [0] });
    const one = writePlan(fresh(), { recipe: 'smoke', seeds: [0], evalSeed: 1, threads: 1, steps: [0] });
    const train = two.jobs[0]!;
    expect([slotsOf(train, 2, true), slotsOf(train, 1, true), slotsOf(train, 2, false)]).toEqual([2, 1, 1]);
    expect([slotsOf(one.jobs[0]!, 2, true), slotsOf(one.jobs[0]!, 2, false)]).toEqual([1, 1]);
    expect(two.jobs.slice(1).map((job) => slotsOf(job, 2, true))).toEqual(two.jobs.slice(1).map(() => 1));
  });

  it('forks an independent eval seed for every training seed', () => {
    const plan = writePlan(fresh(), { recipe: 'smoke', seeds: [0, 1, 2, 3], evalSeed: 1 });
    const stepZero = plan.jobs.filter(
      (job) => job.kind === 'eval' && job.chapterStep === 0 && job.label === 'a',
    );
    const seeds = stepZero.map((job) => (job.kind === 'eval' ? job.evalSeed : ''));
    expect(new Set(seeds).size).toBe(4);
    expect(seeds[2]).toBe(evalSeedOf(1, 2, 'a'));
    expect(evalSeedOf(1, 2, 'a')).not.toBe(evalSeedOf(1, 2, 'b'));
  });

  it('writes one line per job and reads it back; rewriting the same plan is a no-op', async () => {
    const dir = fresh();
    const result = await cli([
      'study',
      'plan',
      '--recipe',
      'smoke',
      '--seeds',
      '0-1',
      '--steps',
      '0,80',
      '--out',
      dir,
    ]);
    expect(result.code).toBe(0);
    const lines = readFileSync(join(dir, 'plan.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(2 + 2 * 5);
    expect(readPlan(dir).jobs.length).toBe(12);
    expect(
      (await cli(['study', 'plan', '--recipe', 'smoke', '--seeds', '0-1', '--steps', '0,80', '--out', dir]))
        .code,
    ).toBe(0);
    const other = await cli(['study', 'plan', '--recipe', 'smoke', '--seeds', '0-2', '--out', dir]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/already holds another study's plan/);
  });
});

describe('study: bad input is one line and exit 1 or 2, with nothing half-written', () => {
  const errorLines = (stderr: string) =>
    stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('tinyagent study:'));

  it('a recipe that fails validation', async () => {
    const recipe = join(root, 'bad.json');
    writeFileSync(recipe, JSON.stringify({ groupSize: 1 }));
    const dir = fresh();
    const result = await cli(['study', 'plan', '--recipe', recipe, '--seeds', '0-3', '--out', dir]);
    expect(result.code).toBe(1);
    expect(errorLines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/groupSize/);
    expect(existsSync(dir)).toBe(false);
  });

  it('a study folder written by another version', async () => {
    const dir = fresh();
    writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1 });
    const header = JSON.parse(readFileSync(join(dir, 'study.json'), 'utf8'));
    writeFileSync(join(dir, 'study.json'), JSON.stringify({ ...header, packageVersion: '0.0.1' }));
    const result = await cli(['study', 'status', dir]);
    expect(result.code).toBe(1);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(/written by another version.*tinyagent 0\.0\.1/),
    ]);
  });

  it('a hand-edited plan line', async () => {
    const dir = fresh();
    writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1 });
    const text = readFileSync(join(dir, 'plan.jsonl'), 'utf8').replace('"episodes":8', '"episodes":9');
    writeFileSync(join(dir, 'plan.jsonl'), text);
    expect((await cli(['study', 'run', dir, '--index', '1'])).code).toBe(1);
  });

  it('--index out of range', async () => {
    const dir = fresh();
    writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1 });
    const result = await cli(['study', 'run', dir, '--index', '14']);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(/--index 14 is out of range: the plan has jobs 0 to 13/),
    ]);
    expect(existsSync(join(dir, 'jobs'))).toBe(false);
  });

  it('an evaluation whose training is not done', async () => {
    const dir = fresh();
    writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1 });
    const result = await cli(['study', 'run', dir, '--index', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/needs the training of seed 0, job 0 .* done first/);
  });

  it('sbatch missing', () => {
    const dir = fresh();
    writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1 });
    const result = spawnSync(process.execPath, [BIN, 'study', 'slurm', dir, '--submit'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: '/nonexistent' },
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^tinyagent study: sbatch is not on PATH/),
    ]);
    // The scripts are written whole before the submission; they are what a login node submits.
    expect(readFileSync(join(dir, 'slurm', 'train.sbatch'), 'utf8')).toMatch(/#SBATCH --array=0\n/);
    expect(readFileSync(join(dir, 'slurm', 'eval.sbatch'), 'utf8')).toMatch(/#SBATCH --array=1-13/);
  });

  it('a study folder on a full disk', () => {
    // A 16 KiB tmpfs, filled: every write fails with ENOSPC, as on a full shared disk.
    const mountPoint = join(root, 'full');
    mkdirSync(mountPoint);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', mountPoint]);
    try {
      spawnSync('dd', ['if=/dev/zero', `of=${join(mountPoint, 'filler')}`, 'bs=1k', 'count=64'], {
        stdio: 'ignore',
      });
      const dir = join(mountPoint, 'study');
      const result = spawnSync(
        process.execPath,
        [BIN, 'study', 'plan', '--recipe', 'smoke', '--seeds', '0-3', '--out', dir],
        {
          encoding: 'utf8',
        },
      );
      expect(result.status).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^tinyagent study: .*ENOSPC: no space left on device/),
      ]);
      expect(existsSync(join(dir, 'study.json'))).toBe(false);
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    } finally {
      execFileSync('umount', [mountPoint]);
    }
  });

  it('a disk that fills between plan.jsonl and study.json: neither is written, and the same command then plans the study', () => {
    // The plan's bytes, from the same plan written elsewhere (plan.jsonl names no folder).
    const planBytes = statSync(
      join(writePlan(fresh(), { recipe: 'smoke', seeds: [0, 1, 2, 3], evalSeed: 1 }).dir, 'plan.jsonl'),
    ).size;
    const mountPoint = join(root, 'fills');
    mkdirSync(mountPoint);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint]);
    try {
      // Room for plan.jsonl's pages and not one more: its write succeeds, study.json's fails.
      const page = 4096;
      const { bavail, bsize } = statfsSync(mountPoint);
      const filler = join(mountPoint, 'filler');
      writeFileSync(filler, Buffer.alloc(bavail * bsize - Math.ceil(planBytes / page) * page));
      const dir = join(mountPoint, 'study');
      const plan = () =>
        spawnSync(
          process.execPath,
          [BIN, 'study', 'plan', '--recipe', 'smoke', '--seeds', '0-3', '--out', dir],
          {
            encoding: 'utf8',
          },
        );
      const full = plan();
      expect(full.status).toBe(1);
      expect(full.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^tinyagent study: .*(plan\.jsonl|study\.json).*ENOSPC: no space left on device/,
        ),
      ]);
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
      rmSync(filler);
      const again = plan();
      expect(again.status, again.stderr).toBe(0);
      expect(readPlan(dir).jobs).toHaveLength(56);
    } finally {
      execFileSync('umount', [mountPoint]);
    }
  });

  it('a plan interrupted between its two files (plan.jsonl and a temporary left) is written again', async () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, 'plan.jsonl'), '{"index":0}\n');
    writeFileSync(join(dir, '.study.json.999999.1.tmp'), '{');
    const result = await cli(['study', 'plan', '--recipe', 'smoke', '--seeds', '0', '--out', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(readPlan(dir).jobs).toHaveLength(14);
    expect(readdirSync(dir).sort()).toEqual(['plan.jsonl', 'study.json']);
  });

  it('a recipe whose context does not fit the model is refused when planned, not after behaviour cloning', async () => {
    const recipe = join(root, 'long-context.json');
    writeFileSync(recipe, JSON.stringify({ contextTokens: 4096 }));
    const dir = fresh();
    const result = await cli(['study', 'plan', '--recipe', recipe, '--seeds', '0', '--out', dir]);
    expect(result.code).toBe(1);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(
        /contextTokens 4096 plus maxActionTokens \d+ exceed the model's context length 128/,
      ),
    ]);
    expect(existsSync(dir)).toBe(false);
  });

  it('a recipe in one segment measures only its snapshots: --steps 0,80 plans, the default nine steps are refused', async () => {
    const recipe = join(root, 'one-segment.json');
    writeFileSync(recipe, JSON.stringify({ segmentSteps: 80 }));
    const refused = fresh();
    const all = await cli(['study', 'plan', '--recipe', recipe, '--seeds', '0', '--out', refused]);
    expect(all.code).toBe(1);
    expect(errorLines(all.stderr)).toEqual([
      expect.stringMatching(
        /snapshots \(every 80 of 80 steps\) do not hold the chapter's steps 10, 20, 30, 40, 50, 60, 70 scaled by 1;/,
      ),
    ]);
    expect(existsSync(refused)).toBe(false);
    const dir = fresh();
    const planned = await cli([
      'study',
      'plan',
      '--recipe',
      recipe,
      '--seeds',
      '0',
      '--steps',
      '0,80',
      '--out',
      dir,
    ]);
    expect(planned.code).toBe(0);
    expect(readPlan(dir).measure.steps).toEqual([0, 80]);
    expect(
      await cli(['study', 'plan', '--recipe', recipe, '--seeds', '0', '--steps', '0,30', '--out', fresh()]),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("do not hold the chapter's steps 30 scaled by 1"),
    });
  });

  it('at most 10000 seeds in a study, however many ranges give them', () => {
    expect(parseSeeds('0-9999')).toHaveLength(10_000);
    expect(() => parseSeeds('0-9999,10000')).toThrow(/--seeds: at most 10000 seeds in a study/);
    expect(() => parseSeeds('0,3-1')).toThrow(/--seeds: range '3-1' runs downwards; write it 1-3/);
    expect(() => parseSeeds('2147483648')).toThrow(
      /--seeds: seed 2147483648 is above the largest, 2147483647/,
    );
    expect(() => parseSeeds('0-4999,5000-9999,10000-14999')).toThrow(/at most 10000 seeds in a study/);
    expect(() =>
      writePlan(fresh(), {
        recipe: 'smoke',
        seeds: Array.from({ length: 10_001 }, (_, seed) => seed),
        evalSeed: 1,
      }),
    ).toThrow(/at most 10000 training seeds, got 10001/);
  });

  it("a recipe label edited by hand: a built-in recipe must give the study's config", async () => {
    const dir = fresh();
    writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1 });
    const header = JSON.parse(readFileSync(join(dir, 'study.json'), 'utf8'));
    writeFileSync(join(dir, 'study.json'), JSON.stringify({ ...header, recipe: 'default' }));
    const result = await cli(['study', 'status', dir]);
    expect(result.code).toBe(1);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(
        /study\.json: its recipe 'default' gives the config [0-9a-f]{16}, not its config [0-9a-f]{16}/,
      ),
    ]);
    writeFileSync(join(dir, 'study.json'), JSON.stringify({ ...header, recipe: 'x\u001b[2Jy' }));
    expect(errorLines((await cli(['study', 'status', dir])).stderr)).toEqual([
      expect.stringMatching(/its recipe must be default, smoke or the recipe file it was planned from/),
    ]);
  });

  it('TINYAGENT_LEASE_TIMEOUT must be a plain decimal number of seconds', async () => {
    const dir = fresh();
    writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1 });
    const unlock = (value: string) =>
      cliChild(['study', 'unlock', dir], { ...process.env, TINYAGENT_LEASE_TIMEOUT: value });
    const refused = await Promise.all(['0x10', '1e1', ' 16', '-5', 'Infinity'].map(unlock));
    for (const result of refused) {
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(
        /TINYAGENT_LEASE_TIMEOUT=.* is not a decimal number of seconds in \[0\.1\.\.86400\]/,
      );
    }
    const plain = await unlock('16.5');
    expect(plain.status, plain.stderr).toBe(0);
  });

  it('an unknown study command and a bad --seeds are usage errors', async () => {
    expect((await cli(['study', 'launch', 'x'])).code).toBe(2);
    expect((await cli(['study', 'plan', '--recipe', 'smoke', '--seeds', '3-1', '--out', fresh()])).code).toBe(
      2,
    );
    expect((await cli(['study', 'plan', '--recipe', 'smoke', '--seeds', '0,0', '--out', fresh()])).code).toBe(
      2,
    );
  });
});

afterAll(() => {
  // the temporary folder is left for inspection on failure; it holds no training
});
