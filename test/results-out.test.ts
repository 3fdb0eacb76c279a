import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, expectCliError, TINY_TRAINING } from './support/cli.ts';
import { isFingerprint } from '../agent/index.ts';

// `--out FILE` of train, canary and bench: the results files the docs quote
// (test/reported-numbers.test.ts) are written by these, atomically, and a bad target is refused
// before any work.

const workDir = mkdtempSync(join(tmpdir(), 'tinyagent-out-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;

describe('--out', () => {
  it('canary writes its rows, the command, the machine and the fingerprint', async () => {
    const out = join(workDir, 'canary.json');
    const result = await cli(['canary', '--episodes', '1', '--out', out]);
    expect(result.code).toBe(0);
    const file = readJson(out);
    expect(file.command).toBe(`tinyagent canary --episodes 1 --out ${out}`);
    expect(file.results).toHaveLength(12);
    expect(file.results[0]).toMatchObject({ policy: 'oracle', env: 'train', meanReward: 1, ok: true });
    expect(file.ok).toBe(true);
    expect(file.machine.cpus).toBeGreaterThan(0);
    expect(file.machine.loadAverage).toHaveProperty('start');
    // The scripted policies use no tfjs: the fingerprint names the code, and no backend.
    expect(isFingerprint(file.fingerprint) && file.fingerprint.backend).toBe('none');
  });

  it('a folder, or a file under a file, is refused in one line before anything runs', async () => {
    const folder = join(workDir, 'a-folder.json');
    mkdirSync(folder);
    await expectCliError(['canary', '--out', folder], 1, /--out: '.*a-folder\.json' is a folder/);
    await expectCliError(['bench', '--only', 'eval', '--out', folder], 1, /is a folder/);
    await expectCliError(['train', '--steps', '1', '--runs-dir', workDir, '--out', folder], 1, /is a folder/);
    const file = join(workDir, 'plain.json');
    writeFileSync(file, 'x');
    await expectCliError(
      ['train', '--steps', '1', '--runs-dir', workDir, '--out', file],
      1,
      /plain\.json: not valid JSON/,
    );
    await expectCliError(['canary', '--episodes', '1', '--out', join(file, 'c.json')], 1, /cannot write/);
  });

  it('train writes the run section from a run trained from step 0, --seeds the seeds section beside it', async () => {
    const config = join(workDir, 'tiny.json');
    writeFileSync(config, JSON.stringify({ ...TINY_TRAINING, parallel: false }));
    const out = join(workDir, 'train.json');
    const tiny = ['--bc-steps', '1', '--steps', '1', '--config', config, '--runs-dir', workDir, '--quiet'];
    const trained = await cli(['train', ...tiny, '--name', 'run', '--out', out]);
    expect(trained.code).toBe(0);
    const { run } = readJson(out);
    expect(run.runDir).toBe(join(workDir, 'run'));
    expect(run.parameterCount).toBe(157_437);
    expect(Object.keys(run.seconds).sort()).toEqual(['bc', 'evals', 'rollouts', 'total', 'updates']);
    expect(Object.keys(run.checksums)).toEqual(['step-0', 'step-1']);
    expect(run.checksums['step-1']).toMatch(/^[0-9a-f]{64}$/);
    expect(run.config.steps).toBe(1);

    // The run folder holds step-0 now: a second call would time a resume, so --out refuses it.
    await expectCliError(['train', ...tiny, '--name', 'run', '--out', out], 2, /already holds step-0/);

    const seeds = await cli(['train', ...tiny, '--seeds', '0', '--out', out]);
    expect(seeds.code).toBe(0);
    const file = readJson(out);
    expect(file.run).toEqual(run);
    expect(file.seeds.evaluation).toMatchObject({ seed: 21, episodesPerTask: 32 });
    expect(file.seeds.rows).toHaveLength(1);
    const [row] = file.seeds.rows;
    expect(Object.keys(row.successes)).toHaveLength(10);
    // The same recipe and seed as the run above: the same checkpoints, measured at both ends.
    expect([row.base.checksum, row.checksum]).toEqual([run.checksums['step-0'], run.checksums['step-1']]);
    const rates = Object.values(row.successes as Record<string, number>).map((n) => n / 32);
    expect(row.passAt1).toBeCloseTo(rates.reduce((a, b) => a + b, 0) / rates.length, 12);
    expect(file.seeds.spread).toBe(0);
  }, 120_000);

  it("bench's train suite runs to its end and writes its figures: our products and tfjs's give weights within float rounding", async () => {
    const out = join(workDir, 'bench.json');
    const result = await cli(['bench', '--only', 'train', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const { train } = readJson(out).figures;
    expect(train.trainStepMsTwoThreads).toBeGreaterThan(0);
    expect(train.grpoUpdatesSecondsOwnProducts).toBeGreaterThan(0);
    // 4 Adam steps grow the products' rounding (within 1e-5, test/agent-products.test.ts) to 5e-4
    // and 7e-4 of the largest weight in two bench runs on this machine.
    expect(train.ownProductsWeightsDifference).toBeLessThan(1e-2);
  }, 600_000);
});
