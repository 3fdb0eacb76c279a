import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliChild } from './support/child.ts';
import { finishedSmokeStudy, type StudyCopy } from './support/smoke-study.ts';
import { writePlan } from '../study/plan.ts';
import type { StudyRunSummary } from '../study/runner.ts';
import { jobDir } from '../study/output.ts';

// A study folder lives on shared storage that many jobs and people write to: everything in it is
// untrusted input. One finished smoke study of one seed and step 0 (a training, an evaluation),
// copied for every test and then damaged, forged or swapped for links, FIFOs and files.
const root = mkdtempSync(join(tmpdir(), 'tinyagent-study-untrusted-'));
const base = join(root, 'base');
let counter = 0;

/** A copy of the finished study (test/support/smoke-study.ts), and its plan. */
let copyStudy: () => StudyCopy;
function copy(): StudyCopy {
  counter += 1;
  return copyStudy();
}

/**
 * Runs the CLI in a child without blocking the test's worker; a command that hangs is killed
 * after `timeout` ms (its signal then set, which fails the test).
 */
function run(
  args: string[],
  { timeout = 60_000, cwd }: { timeout?: number; cwd?: string } = {},
): Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { timeout, ...(cwd !== undefined ? { cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** The one stderr line of a refused command. */
function oneLine(result: { status: number | null; signal: NodeJS.Signals | null; stderr: string }, code = 1) {
  expect(result.signal).toBeNull();
  expect(result.status).toBe(code);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^tinyagent study: /);
  return lines[0]!;
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Rewrites an evaluation's result.json and gives output.json its new checksum, as a careful forger would. */
function forgeResult(evaluation: string, edit: (result: Record<string, unknown>) => void): void {
  const result = JSON.parse(readFileSync(join(evaluation, 'result.json'), 'utf8')) as Record<string, unknown>;
  edit(result);
  const text = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(join(evaluation, 'result.json'), text);
  const output = JSON.parse(readFileSync(join(evaluation, 'output.json'), 'utf8'));
  output.files['result.json'] = sha256(text);
  output.checkpointChecksum = result['checkpointChecksum'];
  writeFileSync(join(evaluation, 'output.json'), JSON.stringify(output));
}

/** Files a failed write could leave: claim temporaries, partial job folders, atomic-write temporaries. */
function leftovers(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => /(^|\/)\.[^/]*\.tmp$|\.partial-/.test(name));
}

beforeAll(async () => {
  copyStudy = await finishedSmokeStudy(root);
}, 300_000);

describe('a job is checked against its kind and the plan, not against its own output.json', () => {
  it('a result.json forged to 8/8 with output.json listing no files is not done; report refuses', async () => {
    const { dir, evaluation } = copy();
    forgeResult(evaluation, (result) => {
      for (const task of result['perTask'] as Array<Record<string, unknown>>) {
        task['successes'] = 8;
        task['outcomes'] = '11111111';
      }
      result['passAt1'] = 1;
    });
    const output = JSON.parse(readFileSync(join(evaluation, 'output.json'), 'utf8'));
    writeFileSync(join(evaluation, 'output.json'), JSON.stringify({ ...output, files: {} }));
    const status = await run(['study', 'status', dir]);
    expect(status.stdout).toMatch(
      /^failed\t1\t.*\toutput\.json does not list the files an evaluation job writes \(result\.json\)$/m,
    );
    expect(oneLine(await run(['study', 'report', dir]))).toMatch(/1 of 1 evaluation jobs are not done/);
  });

  it('a result.json deleted with output.json listing no files is rerun, and report then exits 0', async () => {
    const { dir, evaluation } = copy();
    const before = readFileSync(join(evaluation, 'result.json'), 'utf8');
    rmSync(join(evaluation, 'result.json'));
    const output = JSON.parse(readFileSync(join(evaluation, 'output.json'), 'utf8'));
    writeFileSync(join(evaluation, 'output.json'), JSON.stringify({ ...output, files: {} }));
    expect((await run(['study', 'status', dir])).stdout).toMatch(
      /1 done, 0 running, 1 failed, 0 pending of 2/,
    );
    expect(oneLine(await run(['study', 'report', dir]))).toMatch(/not done/);
    expect((await run(['study', 'run', dir, '--jobs', '1'])).stdout).toMatch(
      /1 job ran, 1 was done, 0 failed/,
    );
    expect(readFileSync(join(evaluation, 'result.json'), 'utf8')).toBe(before);
    expect((await run(['study', 'report', dir])).status).toBe(0);
  }, 120_000);

  it("a result.json of another job, eval seed or checkpoint, with fresh checksums, is not this plan's", async () => {
    const forgeries: Array<[(result: Record<string, unknown>) => void, RegExp]> = [
      [
        (result) => (result['jobId'] = 'eval-0-0-a-000000000000'),
        /its jobId "eval-0-0-a-000000000000" is not the plan's/,
      ],
      [
        (result) => (result['evalSeed'] = '2/train-0/a'),
        /its evalSeed "2\/train-0\/a" is not the plan's "1\/train-0\/a"/,
      ],
      [(result) => (result['step'] = 8), /its step 8 is not the plan's 0/],
      [(result) => (result['checkpointChecksum'] = 'f'.repeat(64)), /made from another checkpoint/],
      // Counts that the episodes do not give, and a pass@1 that the counts do not give.
      [
        (result) => ((result['perTask'] as Array<Record<string, unknown>>)[0]!['successes'] = 8),
        /task speed's counts are not its 8 episodes' outcomes/,
      ],
      [(result) => (result['passAt1'] = 1), /its passAt1 is not the mean of its tasks' pass rates/],
    ];
    for (const [edit, problem] of forgeries) {
      const { dir, evaluation } = copy();
      forgeResult(evaluation, edit);
      const status = await run(['study', 'status', dir]);
      expect(status.stdout).toMatch(/1 done, 0 running, 1 failed, 0 pending of 2/);
      expect(status.stdout.split('\n')[0]).toMatch(problem);
    }
  });
});

describe("a training's checkpoints are checked against the plan's model and their own checksums", () => {
  /** Gives output.json of job folder `folder` the checksum its file `name` has now, as a careful forger would. */
  const refreshChecksum = (folder: string, name: string) => {
    const output = JSON.parse(readFileSync(join(folder, 'output.json'), 'utf8'));
    output.files[name] = sha256(readFileSync(join(folder, name)));
    writeFileSync(join(folder, 'output.json'), JSON.stringify(output));
  };

  it('a damaged weights.bin listed with a fresh checksum is failed, and a rerun trains it again', async () => {
    const { dir, train } = copy();
    const weights = join(train, 'step-0', 'weights.bin');
    const bytes = readFileSync(weights);
    const before = sha256(bytes);
    bytes[100] = bytes[100]! ^ 0xff;
    writeFileSync(weights, bytes);
    refreshChecksum(train, 'step-0/weights.bin');
    const status = await run(['study', 'status', dir]);
    expect(status.stdout).toMatch(
      /^failed\t0\t.*\tstep-0: weights\.bin does not match its manifest's checksum$/m,
    );
    const rerun = await run(['study', 'run', dir, '--index', '0'], { timeout: 240_000 });
    expect(rerun.stdout).toMatch(/^job 0 \(.*\) done$/m);
    expect(sha256(readFileSync(weights))).toBe(before);
  }, 300_000);

  it('a manifest.json edited with a fresh checksum in output.json is failed', async () => {
    const { dir, train } = copy();
    const manifest = join(train, 'step-8', 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"step": 8', '"step": 7'));
    refreshChecksum(train, 'step-8/manifest.json');
    expect((await run(['study', 'status', dir])).stdout).toMatch(
      /^failed\t0\t.*\tstep-8: manifest\.json does not match its manifestChecksum$/m,
    );
  });

  it('a sparse 3 GiB weights.bin is failed without being read: status, report and run --index end as for any damaged training', async () => {
    const { dir, train } = copy();
    truncateSync(join(train, 'step-0', 'weights.bin'), 3 * 2 ** 30);
    const status = await run(['study', 'status', dir]);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      /^failed\t0\t.*\tstep-0\/weights\.bin is 3221225472 bytes, not the \d+ of the recipe's model$/m,
    );
    expect(status.stdout).toMatch(
      /^failed\t1\t.*weights\.bin' is 3221225472 bytes, more than the \d+ such a file may hold$/m,
    );
    expect(oneLine(await run(['study', 'report', dir]))).toMatch(/1 of 1 evaluation jobs are not done/);
    expect(oneLine(await run(['study', 'run', dir, '--index', '1']))).toMatch(
      /needs the training of seed 0, job 0 .* and it is failed \(step-0\/weights\.bin is 3221225472 bytes/,
    );
  });

  it('at 1.9 GB, status does not read weights.bin: its memory stays that of a status without it', async () => {
    const { dir, train } = copy();
    truncateSync(join(train, 'step-0', 'weights.bin'), 1_900_000_000);
    // GNU time's %M: the child's peak resident memory in KB (the file is sparse: reading it would fill 1.9 GB).
    const status = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, BIN, 'study', 'status', dir], {
      encoding: 'utf8',
    });
    expect(status.stdout).toMatch(/^failed\t0\t.*weights\.bin is 1900000000 bytes, not the/m);
    const peakKb = Number(status.stderr.trim().split('\n').at(-1));
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb).toBeLessThan(1_000_000);
  });
});

describe('a hand-edited study.json is refused (exit 1)', () => {
  it('a config edited under the same configHash', async () => {
    const { dir } = copy();
    const header = JSON.parse(readFileSync(join(dir, 'study.json'), 'utf8'));
    header.config.entropyCoef = 0.5;
    header.config.learningRate = 0.01;
    writeFileSync(join(dir, 'study.json'), JSON.stringify(header, null, 2));
    for (const command of ['status', 'report'])
      expect(oneLine(await run(['study', command, dir]))).toMatch(
        /study\.json: its config hashes to [0-9a-f]{16}, not to the configHash [0-9a-f]{16} it gives; the plan was edited by hand/,
      );
    expect(oneLine(await run(['study', 'run', dir, '--index', '0']))).toMatch(/edited by hand/);
  });

  it('seeds emptied (with the plan emptied to match), or a measure edited', async () => {
    const { dir } = copy();
    const header = JSON.parse(readFileSync(join(dir, 'study.json'), 'utf8'));
    writeFileSync(join(dir, 'study.json'), JSON.stringify({ ...header, seeds: [] }));
    writeFileSync(join(dir, 'plan.jsonl'), '\n');
    expect(oneLine(await run(['study', 'report', dir]))).toMatch(
      /its seeds must be one or more distinct integers/,
    );
    writeFileSync(
      join(dir, 'study.json'),
      JSON.stringify({ ...header, measure: { ...header.measure, temperatures: [0] } }),
    );
    expect(oneLine(await run(['study', 'status', dir]))).toMatch(
      /its measure is not the one its recipe gives/,
    );
  });
});

describe('no study command can be made to hang or read outside the folder', () => {
  it('result.json a link to a FIFO: status reports it, run --index reruns the job', async () => {
    const { dir, evaluation } = copy();
    const fifo = join(root, `fifo-${counter}`);
    execFileSync('mkfifo', [fifo]);
    rmSync(join(evaluation, 'result.json'));
    symlinkSync(fifo, join(evaluation, 'result.json'));
    const status = await run(['study', 'status', dir], { timeout: 30_000 });
    expect(status.signal).toBeNull();
    expect(status.stdout).toMatch(/^failed\t1\t.*result\.json' is a symbolic link, not a regular file/m);
    const rerun = await run(['study', 'run', dir, '--index', '1'], { timeout: 60_000 });
    expect(rerun.signal).toBeNull();
    expect(rerun.stdout).toMatch(/^job 1 \(.*\) done$/m);
    expect((await run(['study', 'status', dir])).stdout).toMatch(/2 done/);
  }, 120_000);

  it("output.json naming '../../../../../../dev/zero' or a FIFO is not opened", async () => {
    const { dir, evaluation } = copy();
    execFileSync('mkfifo', [join(evaluation, 'pipe')]);
    const output = JSON.parse(readFileSync(join(evaluation, 'output.json'), 'utf8'));
    writeFileSync(
      join(evaluation, 'output.json'),
      JSON.stringify({ ...output, files: { ...output.files, '../../../../../../dev/zero': 'x', pipe: 'y' } }),
    );
    const status = await run(['study', 'status', dir], { timeout: 30_000 });
    expect(status.signal).toBeNull();
    expect(status.stdout).toMatch(/^failed\t1\t.*does not list the files an evaluation job writes/m);
  });

  it('a claim lock that is a FIFO, and a plan file that is a link out of the folder', async () => {
    const { dir, plan } = copy();
    rmSync(jobDir(plan, plan.jobs[1]!), { recursive: true });
    mkdirSync(join(dir, 'claims'), { recursive: true });
    execFileSync('mkfifo', [join(dir, 'claims', `${plan.jobs[1]!.id}.lock`)]);
    const status = await run(['study', 'status', dir], { timeout: 30_000 });
    expect(status.signal).toBeNull();
    expect(status.stdout).toMatch(/1 done, 0 running, 0 failed, 1 pending of 2/);
    const outside = join(root, `outside-${counter}.json`);
    renameSync(join(dir, 'study.json'), outside);
    symlinkSync(outside, join(dir, 'study.json'));
    expect(oneLine(await run(['study', 'status', dir]))).toMatch(
      /study\.json' is a symbolic link, not a regular file/,
    );
  });

  it('jobs a link to a folder outside: status reports it, run --index refuses to write there', async () => {
    const { dir } = copy();
    const outside = join(root, `outside-jobs-${counter}`);
    renameSync(join(dir, 'jobs'), outside);
    symlinkSync(outside, join(dir, 'jobs'));
    const before = readdirSync(outside).sort();
    expect((await run(['study', 'status', dir])).stdout).toMatch(
      /^failed\t0\t.*jobs' is a symbolic link, not a folder/m,
    );
    expect(oneLine(await run(['study', 'run', dir, '--index', '0']))).toMatch(
      /jobs' is a symbolic link, not a folder/,
    );
    expect(readdirSync(outside).sort()).toEqual(before);
  });
  it('results a link to a folder outside: report refuses to write there', async () => {
    const { dir } = copy();
    const outside = mkdtempSync(join(root, 'outside-results-'));
    rmSync(join(dir, 'results'), { recursive: true, force: true });
    symlinkSync(outside, join(dir, 'results'));
    expect(oneLine(await run(['study', 'report', dir]))).toMatch(/results' is a symbolic link, not a folder/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('environment faults: exit 1, one line, nothing left', () => {
  it('study plan --out an existing file, or /dev/null', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    expect(oneLine(await run(['study', 'plan', '--recipe', 'smoke', '--seeds', '0', '--out', file]))).toMatch(
      /--out '.*a-file' is a regular file, not a folder/,
    );
    expect(readFileSync(file, 'utf8')).toBe('x');
    expect(
      oneLine(await run(['study', 'plan', '--recipe', 'smoke', '--seeds', '0', '--out', '/dev/null'])),
    ).toMatch(/--out '\/dev\/null' is a device, not a folder/);
  });

  it('jobs, claims or logs a file', async () => {
    const jobsFile = copy();
    rmSync(join(jobsFile.dir, 'jobs'), { recursive: true });
    writeFileSync(join(jobsFile.dir, 'jobs'), '');
    expect(oneLine(await run(['study', 'run', jobsFile.dir, '--index', '0']))).toMatch(
      /jobs' is a regular file, not a folder/,
    );
    const claimsFile = copy();
    rmSync(claimsFile.train, { recursive: true });
    rmSync(join(claimsFile.dir, 'claims'), { recursive: true, force: true });
    writeFileSync(join(claimsFile.dir, 'claims'), '');
    expect(oneLine(await run(['study', 'run', claimsFile.dir, '--index', '0']))).toMatch(
      /claims' is a regular file, not a folder/,
    );
    const logsFile = copy();
    rmSync(logsFile.evaluation, { recursive: true });
    rmSync(join(logsFile.dir, 'logs'), { recursive: true });
    writeFileSync(join(logsFile.dir, 'logs'), '');
    expect(oneLine(await run(['study', 'run', logsFile.dir, '--jobs', '1']))).toMatch(
      /logs' is a regular file, not a folder/,
    );
  });

  it('a full study folder: run --index and run --jobs 1 end in one line, leaving no temporaries', async () => {
    const mountPoint = join(root, 'full');
    mkdirSync(mountPoint);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint]);
    try {
      const dir = join(mountPoint, 'study');
      mkdirSync(dir);
      cpSync(join(base, 'study.json'), join(dir, 'study.json'));
      cpSync(join(base, 'plan.jsonl'), join(dir, 'plan.jsonl'));
      spawnSync('dd', ['if=/dev/zero', `of=${join(mountPoint, 'filler')}`, 'bs=1k', 'count=1024'], {
        stdio: 'ignore',
      });
      expect(oneLine(await run(['study', 'run', dir, '--index', '0']))).toMatch(
        /ENOSPC: no space left on device/,
      );
      expect(leftovers(dir)).toEqual([]);
      expect(oneLine(await run(['study', 'run', dir, '--jobs', '1']))).toMatch(
        /ENOSPC: no space left on device/,
      );
      expect(leftovers(dir)).toEqual([]);
    } finally {
      execFileSync('umount', [mountPoint]);
    }
  }, 120_000);

  it('a read-only study folder: run --index and run --jobs 1 end in one line', async () => {
    const { dir, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    execFileSync('mount', ['--bind', dir, dir]);
    try {
      execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
      expect(oneLine(await run(['study', 'run', dir, '--index', '1']))).toMatch(
        /EROFS: read-only file system/,
      );
      expect(oneLine(await run(['study', 'run', dir, '--jobs', '1']))).toMatch(
        /EROFS: read-only file system/,
      );
    } finally {
      execFileSync('umount', [dir]);
    }
    expect(leftovers(dir)).toEqual([]);
  }, 120_000);

  it('study plan --out "" is refused, writing nothing into the current folder', async () => {
    const cwd = mkdtempSync(join(root, 'cwd-'));
    const result = await run(['study', 'plan', '--recipe', 'smoke', '--seeds', '0', '--out', ''], { cwd });
    expect(oneLine(result, 2)).toMatch(/--out is empty/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('a recipe of 0 steps, and no seeds, are refused at plan', async () => {
    const recipe = join(root, 'no-steps.json');
    writeFileSync(recipe, JSON.stringify({ steps: 0 }));
    const dir = join(root, 'no-steps');
    expect(oneLine(await run(['study', 'plan', '--recipe', recipe, '--seeds', '0', '--out', dir]))).toMatch(
      /the recipe trains 0 GRPO steps/,
    );
    expect(existsSync(dir)).toBe(false);
    expect(() => writePlan(join(root, 'no-seeds'), { recipe: 'smoke', seeds: [], evalSeed: 1 })).toThrow(
      /a study needs at least one training seed/,
    );
    expect(existsSync(join(root, 'no-seeds'))).toBe(false);
  });
});

describe('logs and failure notes are never followed', () => {
  it('a symlinked logs/*.log: the file it points at is not appended to', async () => {
    const { dir, plan, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    const target = join(root, `target-${counter}.txt`);
    writeFileSync(target, 'outside\n');
    const log = readdirSync(join(dir, 'logs')).find((name) => name.startsWith('1-'))!;
    rmSync(join(dir, 'logs', log));
    symlinkSync(target, join(dir, 'logs', log));
    expect(oneLine(await run(['study', 'run', dir, '--jobs', '1']))).toMatch(
      /logs\/1-.*\.log' is a symbolic link/,
    );
    expect(readFileSync(target, 'utf8')).toBe('outside\n');
    expect(existsSync(jobDir(plan, plan.jobs[1]!))).toBe(false);
  });

  it('a symlinked failed/*.txt: status does not print the file it points at', async () => {
    const { dir, plan, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    const secret = join(root, `secret-${counter}.txt`);
    writeFileSync(secret, 'the secret\n');
    mkdirSync(join(dir, 'failed'));
    symlinkSync(secret, join(dir, 'failed', `${plan.jobs[1]!.id}.txt`));
    const status = await run(['study', 'status', dir]);
    expect(status.stdout).not.toMatch(/the secret/);
    expect(status.stdout).toMatch(/^failed\t1\t.*its failure note is not read: .*is a symbolic link/m);
  });
});

describe('claims of other runs', () => {
  it('study run says which lock and which host it waits on, and when that lease was last renewed', async () => {
    const { dir, plan, train } = copy();
    rmSync(train, { recursive: true });
    const lock = join(dir, 'claims', `${plan.jobs[0]!.id}.lock`);
    mkdirSync(join(dir, 'claims'), { recursive: true });
    writeFileSync(
      lock,
      JSON.stringify({ pid: 4242, host: 'node-17.elsewhere', since: '2026-01-01T00:00:00Z' }),
    );
    const child = spawn(process.execPath, [BIN, 'study', 'run', dir, '--jobs', '1']);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const deadline = Date.now() + 60_000;
    while (!stderr.includes('\n') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    expect(stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^waiting for job 0 \\(${plan.jobs[0]!.id}\\): its claim ${lock} is held by process 4242 on node-17\\.elsewhere since 2026-01-01T00:00:00Z, last renewed \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; it is taken over if not renewed for 60 s$`,
      ),
    );
  }, 90_000);

  it('a job another run finishes after this run handed it to a worker counts as done, not as ran', async () => {
    const { dir, plan, evaluation } = copy();
    const saved = join(root, `saved-${counter}`);
    renameSync(evaluation, saved);
    rmSync(join(dir, 'logs'), { recursive: true });
    const result = cliChild(['study', 'run', dir, '--jobs', '1', '--json']);
    // The run makes logs/ once it has read the states (job 1 pending); its worker takes seconds to start.
    while (!existsSync(join(dir, 'logs'))) await new Promise((resolve) => setTimeout(resolve, 5));
    renameSync(saved, jobDir(plan, plan.jobs[1]!));
    const { status, stdout } = await result;
    expect(status).toBe(0);
    const summary = JSON.parse(stdout) as StudyRunSummary;
    expect(summary.jobs.map((job) => job.index)).toEqual([1]);
    expect([summary.ran, summary.skipped]).toEqual([0, 2]);
  }, 90_000);
});
