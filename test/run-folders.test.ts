import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRunFolder, checkRunSnapshots, defaultRLConfig } from '../train/index.ts';
import { ensureRun, parseRunOptions, seedRun, typeRunDir } from '../experiments/runs.ts';
import { InputError } from '../lib/errors.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tinyagent-runfolder-'));
  folders.push(folder);
  return folder;
}

/** A run folder as training leaves it, with manifests that hold only the fields that tie a snapshot to its run. */
function fakeRun(dir: string, seed: number, steps: readonly number[]): void {
  const config = defaultRLConfig({ seed });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ config, harnessHash: 'x' }));
  for (const step of steps) {
    mkdirSync(join(dir, `step-${step}`));
    writeFileSync(
      join(dir, `step-${step}`, 'manifest.json'),
      JSON.stringify({ format: 'tinyagent-checkpoint', step, seed, config }),
    );
  }
}

describe('run folders', () => {
  it("refuses a snapshot copied in from another seed's run, naming it", () => {
    const root = tempFolder();
    fakeRun(join(root, 'seed-0'), 0, [0, 10, 20]);
    fakeRun(join(root, 'seed-1'), 1, [0, 10, 20]);
    expect(() => checkRunSnapshots(join(root, 'seed-0'), [0, 10, 20])).not.toThrow();
    rmSync(join(root, 'seed-0', 'step-10'), { recursive: true });
    execFileSync('cp', ['-r', join(root, 'seed-1', 'step-10'), join(root, 'seed-0', 'step-10')]);
    expect(() => checkRunSnapshots(join(root, 'seed-0'), [0, 10, 20])).toThrow(
      `${join(root, 'seed-0', 'step-10')} is not a snapshot of this run: its seed is 1, the run's is 0; delete it (the run retrains it) or use its own run`,
    );
  });

  it('refuses a snapshot of another config or another step', () => {
    const root = tempFolder();
    const run = join(root, 'r');
    fakeRun(run, 0, [0, 10]);
    const other = defaultRLConfig({ seed: 0, klCoef: 0.5 });
    writeFileSync(
      join(run, 'step-10', 'manifest.json'),
      JSON.stringify({ format: 'tinyagent-checkpoint', step: 10, seed: 0, config: other }),
    );
    expect(() => checkRunSnapshots(run, [10])).toThrow(/another config \(klCoef 0\.5 there, 0 in the run\)/);
    writeFileSync(
      join(run, 'step-10', 'manifest.json'),
      JSON.stringify({ format: 'tinyagent-checkpoint', step: 20, seed: 0, config: other }),
    );
    expect(() => checkRunSnapshots(run, [10])).toThrow(
      /step-10 is not a snapshot of this run: it is step 20, not 10/,
    );
  });

  it("refuses a config.json that holds no run's config (null, a number, an object without one) in one line", () => {
    const run = join(tempFolder(), 'r');
    fakeRun(run, 0, [0]);
    for (const text of ['null', '7', '{}', '{"config": null}']) {
      writeFileSync(join(run, 'config.json'), text);
      expect(() => checkRunSnapshots(run, [0])).toThrow(
        `${join(run, 'config.json')} is not a run's config; delete the folder or choose another (train's --name, an experiment's --run)`,
      );
    }
  });

  it('refuses a checkpoint folder, a file, a FIFO and a symlink loop as a run folder; takes a new, an empty and a run folder', () => {
    const root = tempFolder();
    const checkpoint = join(root, 'step-80');
    mkdirSync(checkpoint);
    writeFileSync(join(checkpoint, 'manifest.json'), '{}');
    writeFileSync(join(checkpoint, 'weights.bin'), '');
    expect(() => checkRunFolder(checkpoint)).toThrow(
      /step-80 is not a training run's folder: it holds manifest\.json, weights\.bin \(a checkpoint folder\)/,
    );
    const fifo = join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => checkRunFolder(fifo)).toThrow(`${fifo} is a FIFO, not a run folder; give a folder's path`);
    const loop = join(root, 'loop');
    symlinkSync(loop, loop);
    expect(() => checkRunFolder(loop)).toThrow(`${loop}: cannot use as a run folder (ELOOP)`);
    expect(() => checkRunFolder(join(root, 'new'))).not.toThrow();
    mkdirSync(join(root, 'empty'));
    expect(() => checkRunFolder(join(root, 'empty'))).not.toThrow();
    fakeRun(join(root, 'run'), 0, [0]);
    writeFileSync(join(root, 'run', 'log.jsonl'), '');
    writeFileSync(join(root, 'run', '.config.json.123.4.tmp'), '');
    expect(() => checkRunFolder(join(root, 'run'))).not.toThrow();
  });

  it('an experiment given a checkpoint folder as --run refuses it and writes nothing into it', async () => {
    const root = tempFolder();
    const checkpoint = join(root, 'step-80');
    mkdirSync(checkpoint);
    writeFileSync(join(checkpoint, 'manifest.json'), '{"broken":');
    await expect(ensureRun(checkpoint, { smoke: false, steps: [0, 80] })).rejects.toThrow(
      /not a training run's folder/,
    );
    expect(readdirSync(checkpoint)).toEqual(['manifest.json']);
  });

  it("never trains a smoke run into a full run's folder (README: runs/<name>-smoke), whoever names it", async () => {
    const root = tempFolder();
    for (const name of ['default', 'type-zero', 'seed-2'])
      await expect(ensureRun(join(root, name), { smoke: true, steps: [0] })).rejects.toThrow(
        `a smoke run trains only into a folder named <name>-smoke; ${join(root, name)} is not one`,
      );
    expect(readdirSync(root)).toEqual([]);
  });

  it("names every run an experiment derives from a smoke run <name>-smoke (17.6's and ex-4's type runs, the seed runs)", () => {
    const root = tempFolder();
    const smokeRun = join(root, 'default-smoke');
    expect(typeRunDir(smokeRun, 'zero', true)).toBe(join(root, 'type-zero-smoke'));
    expect(typeRunDir(join(root, 'default'), 'zero', false)).toBe(join(root, 'type-zero'));
    expect(seedRun(smokeRun, 3, true)).toBe(join(root, 'seed-3-smoke'));
    expect(parseRunOptions(['--smoke']).run).toBe('runs/default-smoke');
  });

  it('puts smoke seed runs in folders of their own, beside the full ones', () => {
    const root = tempFolder();
    expect(seedRun(join(root, 'default-smoke'), 1, true)).toBe(join(root, 'seed-1-smoke'));
    expect(seedRun(join(root, 'default'), 1, false)).toBe(join(root, 'seed-1'));
    // Seed 0 is the run itself when it holds that recipe (no config.json yet: trained with it).
    expect(seedRun(join(root, 'default-smoke'), 0, true)).toBe(join(root, 'default-smoke'));
  });

  it('refuses a run whose config.json is a FIFO instead of blocking on it', () => {
    const root = tempFolder();
    mkdirSync(join(root, 'default'));
    execFileSync('mkfifo', [join(root, 'default', 'config.json')]);
    expect(() => seedRun(join(root, 'default'), 0, false)).toThrow(InputError);
    expect(() => seedRun(join(root, 'default'), 0, false)).toThrow(
      /config\.json' is a FIFO, not a regular file/,
    );
  });
});
