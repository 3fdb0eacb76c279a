import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEnv, makeTasks, parseHarness, trainingHarness } from '../gym/index.ts';
import {
  buildTokenizer,
  createModel,
  defaultModelConfig,
  initBackend,
  saveCheckpoint,
  type Agent,
} from '../agent/index.ts';
import { evaluate } from '../agent/index.ts';
import { writeEvaluation } from '../eval/io/index.ts';
import { Rng } from '../lib/rng.ts';
import { cli } from './support/cli.ts';
import { evaluationInterval } from '../cli/commands/eval.ts';
import { coverageClause } from '../publish/coverageNotes.ts';
import { TASK_BOOTSTRAP_METHOD } from '../analysis/index.ts';

let root: string;
let dirA: string;
let dirB: string;
const agents: Agent[] = [];

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  root = mkdtempSync(join(tmpdir(), 'tinyagent-evaluate-'));
  const tokenizer = buildTokenizer(makeTasks('all'));
  const harness = trainingHarness();
  // Two different policies, saved as checkpoints as training saves them.
  for (const [i, name] of ['a', 'b'].entries()) {
    const model = createModel(defaultModelConfig(tokenizer.words.length), new Rng(`evaluate/${name}`));
    saveCheckpoint(join(root, name), model, { step: i * 10, seed: i, harness, tokenizer: tokenizer.words });
    agents.push({ model, tokenizer });
  }
  dirA = join(root, 'a');
  dirB = join(root, 'b');
});

afterAll(() => {
  for (const agent of agents) agent.model.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('evaluate', () => {
  it('two different checkpoints evaluated with one seed see identical env seeds, sampling streams and renamed tasks', async () => {
    const a = await evaluate({ checkpoint: dirA, episodes: 4, seed: 9 });
    const b = await evaluate({ checkpoint: dirB, episodes: 4, seed: 9 });
    const scripted = await evaluate({ scripted: 'oracle', episodes: 4, seed: 9 });
    const key = (record: {
      task: string;
      sample: number;
      envSeed: number;
      samplingKey: string;
      shownName: string;
    }) => [record.task, record.sample, record.envSeed, record.samplingKey, record.shownName].join('|');
    expect(a.records.map(key)).toEqual(b.records.map(key));
    expect(scripted.records.map(key)).toEqual(a.records.map(key));
    // The same env seed gives the same renamed source (names and parameters) to whoever plays it.
    const env = makeEnv(a.provenance.harness, { tasks: makeTasks('heldout') });
    for (const record of a.records.slice(0, 8)) {
      const first = env.reset({ seed: record.envSeed, options: { task: record.task } }).observation;
      expect(first[1]).toBe(record.shownName);
      expect(env.reset({ seed: record.envSeed, options: { task: record.task } }).observation).toEqual(first);
    }
    // Different players, different play on the same episodes.
    expect(scripted.records.map((record) => record.success)).not.toEqual(
      a.records.map((record) => record.success),
    );
    expect(a.provenance.checkpoint).toMatchObject({ path: dirA, step: 0 });
    expect(b.provenance.checkpoint?.checksum).not.toBe(a.provenance.checkpoint?.checksum);
    expect(a.provenance.harnessHash).toBe(b.provenance.harnessHash);
    expect(a.provenance.backend).toBe('wasm');
    expect(scripted.passAt1).toBe(1);
  });

  it('counts per task by the one success rule, and the same seed gives the same numbers', async () => {
    const first = await evaluate({ agent: agents[0]!, episodes: 3, seed: 2 });
    const again = await evaluate({ agent: agents[0]!, episodes: 3, seed: 2 });
    expect(again.records).toEqual(first.records);
    expect(first.perTask.map((count) => count.name)).toEqual(makeTasks('heldout').map((task) => task.name));
    for (const count of first.perTask) {
      const own = first.records.filter((record) => record.task === count.name);
      expect(count.episodes).toBe(3);
      expect(count.successes).toBe(own.filter((record) => record.submitted && record.hiddenPass).length);
    }
    expect(first.passAt1).toBeCloseTo(
      first.perTask.reduce((sum, count) => sum + count.successes / 3, 0) / first.perTask.length,
      12,
    );
    // Under public-test reward the gamer earns reward but never succeeds.
    const gamer = await evaluate({ scripted: 'gamer', harness: { reward: 'public' }, episodes: 2, seed: 0 });
    expect(gamer.records.every((record) => record.reward === 1 && !record.success)).toBe(true);
    expect(gamer.passAt1).toBe(0);
  });

  it('takes the harness from the checkpoint, with single-field changes over it; refuses an unknown field', async () => {
    const hot = await evaluate({
      checkpoint: dirA,
      harness: { temperature: 1.3, maxTurns: 3 },
      episodes: 1,
      seed: 0,
    });
    expect(hot.provenance.harness).toEqual(
      parseHarness({ ...trainingHarness(), temperature: 1.3, maxTurns: 3 }),
    );
    await expect(
      evaluate({ checkpoint: dirA, harness: { groupSize: 8 } as never, episodes: 1, seed: 0 }),
    ).rejects.toThrow(/harness\.groupSize: unknown field/);
    await expect(evaluate({ scripted: 'oracle', episodes: 0, seed: 0 })).rejects.toThrow(RangeError);
  });

  it('writes every record field and the provenance; the file round-trips through metrics and compare, which reports common random numbers', async () => {
    const fileA = join(root, 'a.jsonl');
    const fileB = join(root, 'b.jsonl');
    const cliA = await cli([
      'eval',
      '--checkpoint',
      dirA,
      '--episodes',
      '4',
      '--seed',
      '5',
      '--out',
      fileA,
      '--json',
    ]);
    expect(cliA.code).toBe(0);
    // pass@1 with the chapter's task-level interval: the one `metrics` prints for the file written,
    // number for number. An untrained policy fails every task: the bootstrap has no spread, and the
    // exact interval over the tasks stands in, named as such.
    const printed = JSON.parse(cliA.stdout) as {
      passAt1: number;
      perTask: Array<{ successes: number; episodes: number }>;
      passAt1Interval: { low: number; high: number; estimate: number; method: string; coverage: unknown };
    };
    const fromMetrics = JSON.parse((await cli(['metrics', fileA, '--json'])).stdout) as {
      meanAccuracy: { estimate: number; low: number; high: number; method?: string };
    };
    expect(printed.passAt1).toBe(0);
    expect(fromMetrics.meanAccuracy.method).toBe('exact over tasks');
    expect(printed.passAt1Interval).toEqual({
      estimate: fromMetrics.meanAccuracy.estimate,
      low: fromMetrics.meanAccuracy.low,
      high: fromMetrics.meanAccuracy.high,
      method: expect.stringMatching(/^exact over tasks, 95%/),
      coverage: coverageClause(TASK_BOOTSTRAP_METHOD, `${printed.perTask.length} tasks x 4 episodes`),
    });
    expect(printed.passAt1Interval.high).toBeGreaterThan(0);
    const text = await cli(['eval', '--checkpoint', dirA, '--episodes', '4', '--seed', '5']);
    expect(text.stdout).toContain(
      `pass@1 0.000 (exact over tasks 95% [0.000, ${printed.passAt1Interval.high.toFixed(3)}] over ${printed.perTask.length} tasks; simulated coverage `,
    );
    // The simulated design is 10 tasks x 32 episodes, so 4 episodes per task is said to be another.
    expect(text.stdout).toContain('10 tasks x 4 episodes is not simulated (results/coverage.md))');
    writeEvaluation(fileB, await evaluate({ checkpoint: dirB, episodes: 4, seed: 5 }));
    const lines = readFileSync(fileA, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(lines[0]!)).toEqual(['harness', 'provenance']);
    expect(lines[0]!.provenance).toMatchObject({
      checkpoint: { path: dirA, step: 0 },
      seed: 5,
      episodesPerTask: 4,
      backend: 'wasm',
    });
    expect(lines).toHaveLength(41);
    expect(Object.keys(lines[1]!)).toEqual(
      expect.arrayContaining([
        'task',
        'sample',
        'passed',
        'envSeed',
        'samplingKey',
        'shownName',
        'reward',
        'submitted',
        'publicPass',
        'hiddenPass',
        'firstEditOp',
        'turns',
        'readCalls',
        'editsRefused',
        'malformed',
      ]),
    );
    const metrics = await cli(['metrics', fileA, '--json']);
    expect(metrics.stderr).toBe('');
    const report = JSON.parse(metrics.stdout) as { tasks: number };
    expect(report.tasks).toBe(10);
    const compare = await cli(['compare', fileA, fileB, '--json']);
    expect(compare.stderr).toBe('');
    const comparison = JSON.parse(compare.stdout) as {
      pairing: { kind: string; matched: number; total: number };
    };
    expect(comparison.pairing).toMatchObject({ kind: 'common-random-numbers', matched: 40, total: 40 });
    // Another seed: the pairing is by index only, and compare says the seeds differ.
    const fileC = join(root, 'c.jsonl');
    writeEvaluation(fileC, await evaluate({ checkpoint: dirB, episodes: 4, seed: 6 }));
    const unpaired = JSON.parse((await cli(['compare', fileA, fileC, '--json'])).stdout) as {
      pairing: { kind: string };
    };
    expect(unpaired.pairing.kind).toBe('seeds-differ');
  });

  it("eval's interval, where the tasks differ, is the task bootstrap metrics prints for its file", async () => {
    // 30 tasks of 5 episodes, 0 to 5 successes: fine enough that another stream moves the interval.
    const records = Array.from({ length: 30 }, (_, t) => (t * 7) % 6).flatMap((successes, t) =>
      [0, 1, 2, 3, 4].map((sample) => ({ task: `t${t}`, sample, success: sample < successes })),
    );
    const file = join(root, 'mixed.jsonl');
    writeEvaluation(file, { records: records as never, provenance: { harness: trainingHarness() } });
    const fromMetrics = JSON.parse((await cli(['metrics', file, '--json'])).stdout) as {
      meanAccuracy: { estimate: number; low: number; high: number; method?: string };
    };
    expect(fromMetrics.meanAccuracy.method).toBeUndefined();
    expect(evaluationInterval(records, 5)).toMatchObject({
      estimate: fromMetrics.meanAccuracy.estimate,
      low: fromMetrics.meanAccuracy.low,
      high: fromMetrics.meanAccuracy.high,
      method: 'task bootstrap, 2000 replicates, 95%',
    });
    expect(evaluationInterval(records.slice(0, 5), 5)).toBeNull();
  });

  it("--transcripts adds each episode's turns to its row; the readers give the same numbers with and without them", async () => {
    const plain = join(root, 'plain.jsonl');
    const withTranscripts = join(root, 'transcripts.jsonl');
    const base = ['eval', '--checkpoint', dirA, '--episodes', '3', '--seed', '4', '--json'];
    expect((await cli([...base, '--out', plain])).code).toBe(0);
    expect((await cli([...base, '--out', withTranscripts, '--transcripts'])).code).toBe(0);
    const rows = (path: string) =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, any>);
    const without = rows(plain);
    const withT = rows(withTranscripts);
    expect(withT).toHaveLength(without.length);
    expect(withT[0]).toEqual(without[0]);
    for (const [i, row] of withT.slice(1).entries()) {
      const { transcript, ...rest } = row;
      expect(rest).toEqual(without[i + 1]);
      expect(Object.keys(row).at(-1)).toBe('transcript');
      const turns = transcript as Array<{ observation: string[]; action: string[] }>;
      // An untrained policy's episodes are short enough for the context: every turn is there.
      expect(turns).toHaveLength(row.turns);
      expect(turns[0]!.observation.slice(0, 2)).toEqual(['<task>', row.shownName]);
      expect(turns.filter(({ action }) => action.join(' ') === 'read <end>')).toHaveLength(row.readCalls);
      const edits = turns.filter(
        ({ action }) => action.length === 3 && action[0] === 'edit' && action[2] === '<end>',
      );
      if (row.firstEditOp === null) expect(edits).toEqual([]);
      else expect(edits[0]!.action[1]).toBe(row.firstEditOp);
      expect(turns.every(({ observation, action }) => observation.length > 0 && action.length > 0)).toBe(
        true,
      );
    }
    for (const command of [['metrics'], ['diagnose'], ['compare', plain]]) {
      const a = await cli([...command, plain, '--json']);
      const b = await cli([...command, withTranscripts, '--json']);
      expect(b.stderr).toBe('');
      expect(b.code).toBe(a.code);
      expect(b.stdout.replaceAll(withTranscripts, plain)).toBe(a.stdout);
    }
    const usage = await cli(['eval', '--checkpoint', dirA, '--transcripts']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--transcripts goes into the result file: give --out FILE too/);
  });

  it("probe plays one task under other tasks' specs and none, with surface variation off", async () => {
    const { code, stdout } = await cli([
      'probe',
      '--checkpoint',
      dirA,
      '--task',
      'per_day',
      '--episodes',
      '2',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      rows: Array<{ change: string; episodes: number; successes: number }>;
    };
    expect(report.rows.map((row) => row.change)).toEqual([
      'as it is',
      'spec of average (zero)',
      'spec of can_afford (compare)',
      'spec of first_n (off_by_one)',
      'spec of is_even (negation)',
      'spec of larger (min_max)',
      'no spec',
    ]);
    expect(report.rows.every((row) => row.episodes === 2 && row.successes >= 0 && row.successes <= 2)).toBe(
      true,
    );
  });

  it('refuses --out onto a FIFO or a symbolic link before playing, and leaves them as they were', async () => {
    const fifo = join(root, 'out-fifo.jsonl');
    const link = join(root, 'out-link.jsonl');
    execFileSync('mkfifo', [fifo]);
    symlinkSync(join(root, 'elsewhere.jsonl'), link);
    for (const [target, kind] of [
      [fifo, 'a FIFO'],
      [link, 'a symbolic link'],
    ] as const) {
      const { code, stderr } = await cli(['eval', '--checkpoint', dirA, '--episodes', '1', '--out', target]);
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `tinyagent eval: --out: '${target}' is ${kind}; give the path of a regular file (or of none yet)`,
      );
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});
