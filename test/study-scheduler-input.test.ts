import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { jobState, readPlan, type Plan } from '../study/index.ts';
import { K8S_STUDY_PATH, retryTries, writeK8sManifests, writeSlurmScripts } from '../study/scheduler.ts';
import { writePlan, type TrainJob } from '../study/plan.ts';
import { oneLine } from '../lib/text.ts';
import { BIN, cliChild } from './support/child.ts';
import { entrypoint, podCommand } from './support/k8s.ts';

// Every value `study slurm` and `study k8s` write into a script or a manifest comes from the user
// (the study path, --partition, --account, --time, --mem, --sbatch, --image, --claim): each is
// quoted, or refused when no quoting can hold it, and nothing in it runs.
const root = mkdtempSync(join(tmpdir(), 'tinyagent-scheduler-input-'));
const INJECTED = 'touch PWNED';
const execFileAsync = promisify(execFile);

const cli = (args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', ...options });

function plannedAt(dir: string, { steps = [0, 80] }: { steps?: number[] } = {}) {
  writePlan(dir, { recipe: 'smoke', seeds: [0, 1], evalSeed: 1, steps });
  return readPlan(dir);
}

/** Runs `bash -n` (syntax only) on a script; returns its stderr, '' when it parses. */
const bashSyntax = (path: string) => spawnSync('bash', ['-n', path], { encoding: 'utf8' }).stderr;

/**
 * A stand-in sbatch on PATH that records its arguments, one a line, and answers the job ids 42,
 * 43, ... in turn. Returns the PATH to use and a reader of the calls, each an argument list.
 */
function fakeSbatch(name: string): { env: NodeJS.ProcessEnv; calls: () => string[][] } {
  const bin = join(root, `fake-bin-${name}`);
  mkdirSync(bin, { recursive: true });
  const record = join(bin, 'calls');
  writeFileSync(
    join(bin, 'sbatch'),
    `#!/bin/bash\nprintf '%s\\n' "$@" '--' >> ${JSON.stringify(record)}\necho $((41 + $(grep -c '^--$' ${JSON.stringify(record)})))\n`,
  );
  chmodSync(join(bin, 'sbatch'), 0o755);
  return {
    env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` },
    calls: () => {
      const text = existsSync(record) ? readFileSync(record, 'utf8') : '';
      rmSync(record, { force: true });
      return text
        .split('--\n')
        .slice(0, -1)
        .map((call) => call.split('\n').slice(0, -1));
    },
  };
}

/** The indices of a plan's evaluations of `seed`. */
const evalsOf = (plan: Plan, seed: number) =>
  plan.jobs.filter((job) => job.kind === 'eval' && job.seed === seed).map((job) => job.index);

describe('a study folder whose path holds a newline', () => {
  const dir = join(root, `DIR\n${INJECTED}\n#`);
  const cwd = join(root, 'newline-cwd');
  mkdirSync(cwd);
  plannedAt(dir);

  it.each(['slurm', 'k8s'])('study %s refuses it in one line and writes nothing', (sub) => {
    const result = cli(['study', sub, dir], { cwd });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `tinyagent study: study folder ${JSON.stringify(dir)} holds a control character (a newline?); move it to a path without one\n`,
    );
    expect(existsSync(join(dir, sub))).toBe(false);
    expect(existsSync(join(cwd, 'PWNED'))).toBe(false);
  });

  it('the library refuses it too', () => {
    const plan = readPlan(dir);
    expect(() => writeSlurmScripts(plan)).toThrow(/holds a control character/);
    expect(() =>
      writeK8sManifests(plan, { image: 'tinyagent:local', claim: 'studies', parallelism: 1 }),
    ).toThrow(/holds a control character/);
  });
});

// sbatch replaces %x, %j, %u ... in --output (its "filename pattern"), not in --chdir: a study
// folder named like one would send every task's log elsewhere. Slurm 22.05 wrote a task's log
// into `a %x b %j c/logs/` with the line below, and into `a <name> b <job> c/logs/` (which does
// not exist: the log was lost) with the folder's % written as it is.
describe('a study folder whose path holds % (a Slurm filename pattern) or a backslash', () => {
  it("--output writes the folder's % as %%, the tasks' %A_%a as they are; --chdir and the command as they are", () => {
    const dir = join(root, 'a %x b %j c');
    const plan = plannedAt(dir);
    const paths = writeSlurmScripts(plan);
    for (const [name, path] of [
      ['train', paths.train],
      ['eval', paths.eval],
    ] as const) {
      const lines = readFileSync(path, 'utf8').split('\n');
      expect(lines).toContain(
        `#SBATCH --output='${join(root, 'a %%x b %%j c', 'logs', `slurm-${name}-%A_%a.out`)}'`,
      );
      expect(lines).toContain(`#SBATCH --chdir='${dir}'`);
      expect(lines.find((line) => line.includes('--index "$SLURM_ARRAY_TASK_ID"'))).toContain(
        `'${dir}' --index`,
      );
      expect(bashSyntax(path)).toBe('');
    }
  });

  it("a backslash, which turns the tasks' %A_%a off, is refused in one line, nothing written", () => {
    const dir = join(root, 'back\\slash');
    plannedAt(dir);
    const result = cli(['study', 'slurm', dir]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^tinyagent study: study folder ".*back\\\\slash" holds a backslash/);
    expect(existsSync(join(dir, 'slurm'))).toBe(false);
  });
});

describe('a study folder whose path holds quotes, $(...), backquotes and a semicolon', () => {
  const hostile = `it's $(${INJECTED}) \`${INJECTED}\`; ${INJECTED} & "x"`;
  const dir = join(root, hostile);
  const cwd = join(root, 'quoted-cwd');
  mkdirSync(cwd);
  const plan = plannedAt(dir);
  const [seed0, seed1] = [evalsOf(plan, 0), evalsOf(plan, 1)];

  it("submit.sh and --submit send the trainings, then each seed's evaluations after its own training's task", () => {
    const paths = writeSlurmScripts(plan, { partition: 'cpu', time: '01:00:00', account: 'proj' });
    for (const path of [paths.train, paths.eval, paths.submit]) expect(bashSyntax(path)).toBe('');
    const sbatch = fakeSbatch('per-seed');
    const submitted = spawnSync('bash', [paths.submit], { cwd, encoding: 'utf8', env: sbatch.env });
    expect(submitted.stderr).toBe('');
    expect(submitted.stdout).toBe('42 43 44\n');
    const expected = [
      ['--parsable', '--array=0-1', paths.train],
      ...[seed0, seed1].map((indices, seed) => [
        '--parsable',
        `--array=${indices[0]}-${indices.at(-1)}`,
        `--job-name=tinyagent-eval-seed${seed}`,
        '--kill-on-invalid-dep=yes',
        `--dependency=afterok:42_${seed}`,
        paths.eval,
      ]),
    ];
    expect(sbatch.calls()).toEqual(expected);
    // --submit makes the same calls.
    const direct = cli(['study', 'slurm', dir, '--partition', 'cpu', '--submit'], { cwd, env: sbatch.env });
    expect(direct.stderr).toBe('');
    expect(direct.stdout).toBe(
      `submitted ${plan.jobs.length} jobs of ${plan.jobs.length}: training array 42 (--array=0-1) and evaluation arrays 43 (seed 0: --array=${seed0[0]}-${seed0.at(-1)}, afterok:42_0), 44 (seed 1: --array=${seed1[0]}-${seed1.at(-1)}, afterok:42_1)\n`,
    );
    expect(sbatch.calls()).toEqual(expected);
    // An array task past the plan's end: the command reaches the study (it names the plan's
    // jobs) without running one, and a usage error is not retried.
    const task = spawnSync('bash', [paths.train], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, SLURM_ARRAY_TASK_ID: '99' },
    });
    expect(task.status).toBe(2);
    expect(task.stderr).toBe(
      `tinyagent study: --index 99 is out of range: the plan has jobs 0 to ${plan.jobs.length - 1} (see tinyagent study --help)\n`,
    );
    expect(existsSync(join(cwd, 'PWNED'))).toBe(false);
    expect(existsSync(join(dir, 'PWNED'))).toBe(false);
  });

  it('--dependency array: one evaluation array after the whole training array, from submit.sh and --submit alike', () => {
    const paths = writeSlurmScripts(plan, { dependency: 'array' });
    const sbatch = fakeSbatch('array');
    const submitted = spawnSync('bash', [paths.submit], { cwd, encoding: 'utf8', env: sbatch.env });
    expect(submitted.stdout).toBe('42 43\n');
    const expected = [
      ['--parsable', '--array=0-1', paths.train],
      [
        '--parsable',
        `--array=${seed0[0]}-${seed1.at(-1)}`,
        '--kill-on-invalid-dep=yes',
        '--dependency=afterok:42',
        paths.eval,
      ],
    ];
    expect(sbatch.calls()).toEqual(expected);
    const direct = cli(['study', 'slurm', dir, '--dependency', 'array', '--submit', '--json'], {
      cwd,
      env: sbatch.env,
    });
    expect(direct.status).toBe(0);
    expect(JSON.parse(direct.stdout)).toEqual([
      { script: 'train', indices: [0, 1], id: '42', dependency: null },
      { script: 'eval', indices: [...seed0, ...seed1], after: {}, id: '43', dependency: 'afterok:42' },
    ]);
    expect(sbatch.calls()).toEqual(expected);
  });

  it('study k8s writes manifests that name no path of this host, so nothing of the path reaches them', () => {
    const paths = writeK8sManifests(plan, {
      image: 'registry.example/tinyagent:1',
      claim: 'studies',
      parallelism: 2,
    });
    for (const path of [paths.train, paths.eval]) {
      const manifest = readFileSync(path, 'utf8');
      expect(manifest).not.toContain(hostile);
      expect(manifest).not.toContain(BIN);
      expect(manifest).not.toContain(process.execPath);
      expect(manifest).toContain(`mountPath: "${K8S_STUDY_PATH}"`);
    }
  });
});

describe('flags written into a script or a manifest', () => {
  const dir = join(root, 'plain');
  const plan = plannedAt(dir);

  it.each([
    [{ partition: `cpu\n${INJECTED}` }, /--partition "cpu\\ntouch PWNED" is not a partition name/],
    [{ partition: 'cpu --wrap=x' }, /--partition "cpu --wrap=x" is not a partition name/],
    [{ account: 'a;b' }, /--account "a;b" is not an account name/],
    [
      { time: `01:00:00\n${INJECTED}` },
      /--time must be one of Slurm's time limits .*, got "01:00:00\\ntouch PWNED"/,
    ],
    [{ time: '01:00:00:00' }, /--time must be one of Slurm's time limits/],
    [{ time: '1:00-2' }, /--time must be one of Slurm's time limits/],
    [{ mem: '2GB' }, /--mem must be Slurm's size, .* got "2GB"/],
    [{ mem: '0' }, /--mem must be Slurm's size, .* got "0"/],
    [{ sbatch: ['--qos=long x'] }, /--sbatch "--qos=long x" is not one sbatch option/],
    [{ sbatch: [`--qos=$(${INJECTED})`] }, /--sbatch "--qos=\$\(touch PWNED\)" is not one sbatch option/],
    [{ sbatch: ['--comment=a#b'] }, /--sbatch "--comment=a#b" is not one sbatch option/],
    [{ sbatch: ['--qos=x\n#SBATCH --wrap=y'] }, /is not one sbatch option/],
    [{ sbatch: ['-p cpu'] }, /--sbatch "-p cpu" is not one sbatch option/],
    [{ sbatch: ['--array=1-3'] }, /--sbatch "--array=1-3": --array is set by study slurm itself/],
    // sbatch (getopt_long) reads an unambiguous prefix as the whole option.
    [
      { sbatch: ['--cpus-per-t=2'] },
      /--sbatch "--cpus-per-t=2": sbatch reads --cpus-per-t as --cpus-per-task, which is set by study slurm itself \(use --train-cpus/,
    ],
    [{ sbatch: ['--no-req'] }, /sbatch reads --no-req as --no-requeue, which is set by study slurm itself/],
    [{ sbatch: ['--arr=0-3'] }, /sbatch reads --arr as --array, which is set/],
    [{ sbatch: ['--outp=/tmp/x'] }, /sbatch reads --outp as --output, which is set/],
    [{ sbatch: ['--c=1'] }, /sbatch reads --c as --chdir or --cpus-per-task, which is set/],
    [{ dependency: 'both' as 'array' }, /--dependency must be per-seed or array, got "both"/],
  ])('writeSlurmScripts refuses %j', (options, message) => {
    expect(() => writeSlurmScripts(plan, options)).toThrow(message);
    expect(existsSync(join(dir, 'slurm'))).toBe(false);
  });

  it.each([
    [
      '--mem',
      '2 G',
      'must be Slurm\'s size, an integer with an optional unit K, M, G or T (such as 2G or 1500M), got "2 G"',
    ],
    ['--account', 'a b', 'is not an account name'],
    ['--dependency', 'seed', 'must be per-seed or array, got "seed"'],
    [
      '--sbatch',
      '--qos=long;x',
      'is not one sbatch option (such as --qos=long or --exclusive: a long option, its value without spaces, quotes or shell characters)',
    ],
    [
      '--sbatch',
      '--cpus-per-task=4',
      ': --cpus-per-task is set by study slurm itself (use --train-cpus and --eval-cpus)',
    ],
  ])(
    'study slurm %s %j is refused in one line naming the flag (exit 2), nothing written',
    (flag, value, why) => {
      const result = cli(['study', 'slurm', dir, flag, value]);
      expect(result.status).toBe(2);
      const shown =
        flag === '--mem' || flag === '--dependency'
          ? `${flag} ${why}`
          : `${flag} ${JSON.stringify(value)}${why.startsWith(':') ? '' : ' '}${why}`;
      expect(result.stderr).toBe(`${oneLine(`tinyagent study: ${shown}`)} (see tinyagent study --help)\n`);
      expect(existsSync(join(dir, 'slurm'))).toBe(false);
    },
  );

  // sbatch(1)'s --time formats; Slurm 22.05's sbatch --test-only took each of these and refused 01:00:00:00.
  it.each(['100:00:00', '90', '5:30', '2-3', '2-3:04', '1-00:00:00', '0', 'UNLIMITED', 'infinite'])(
    '--time %s lands in both scripts',
    (time) => {
      const paths = writeSlurmScripts(plan, { time });
      for (const path of [paths.train, paths.eval])
        expect(readFileSync(path, 'utf8').split('\n')).toContain(`#SBATCH --time=${time}`);
      rmSync(join(dir, 'slurm'), { recursive: true });
    },
  );

  it("an --sbatch option that only begins like one of the scripts' own is kept (--ntasks-per-node is not --ntasks)", () => {
    const paths = writeSlurmScripts(plan, { sbatch: ['--ntasks-per-node=1', '--no-kill'] });
    expect(readFileSync(paths.train, 'utf8')).toMatch(/^#SBATCH --ntasks-per-node=1\n#SBATCH --no-kill$/m);
    rmSync(join(dir, 'slurm'), { recursive: true });
  });

  it('the resources, the site options and --requeue land in the scripts; --no-requeue writes --no-requeue', () => {
    const result = cli([
      'study',
      'slurm',
      dir,
      '--train-cpus',
      '3',
      '--eval-cpus',
      '2',
      '--mem',
      '1500M',
      '--account',
      'proj',
      '--sbatch',
      '--qos=long',
      '--sbatch=--exclusive',
    ]);
    expect(result.stderr).toBe('');
    const train = readFileSync(join(dir, 'slurm', 'train.sbatch'), 'utf8');
    const evaluation = readFileSync(join(dir, 'slurm', 'eval.sbatch'), 'utf8');
    const options = (script: string) => script.split('\n').filter((line) => line.startsWith('#SBATCH'));
    expect(options(train)).toEqual([
      '#SBATCH --job-name=tinyagent-train',
      '#SBATCH --array=0-1',
      '#SBATCH --cpus-per-task=3',
      '#SBATCH --ntasks=1',
      '#SBATCH --mem=1500M',
      '#SBATCH --requeue',
      '#SBATCH --account=proj',
      '#SBATCH --qos=long',
      '#SBATCH --exclusive',
      `#SBATCH --output=${join(dir, 'logs', 'slurm-train-%A_%a.out')}`,
      `#SBATCH --chdir=${dir}`,
    ]);
    expect(options(evaluation)).toContain('#SBATCH --cpus-per-task=2');
    // Defaults: a training gets its threads, an evaluation 1 CPU, each 2G.
    const twoThreads = join(root, 'two-threads');
    writePlan(twoThreads, { recipe: 'smoke', seeds: [0], evalSeed: 1, steps: [0], threads: 2 });
    expect(cli(['study', 'slurm', twoThreads, '--no-requeue']).status).toBe(0);
    const defaults = (name: string) => options(readFileSync(join(twoThreads, 'slurm', name), 'utf8'));
    expect(defaults('train.sbatch')).toEqual(
      expect.arrayContaining(['#SBATCH --cpus-per-task=2', '#SBATCH --mem=2G']),
    );
    expect(defaults('eval.sbatch')).toEqual(
      expect.arrayContaining(['#SBATCH --cpus-per-task=1', '#SBATCH --mem=2G']),
    );
    for (const name of ['train.sbatch', 'eval.sbatch']) {
      expect(defaults(name)).not.toContain('#SBATCH --requeue');
      expect(defaults(name)).toContain('#SBATCH --no-requeue');
    }
    // The retry loop's bound comes from the lease timeout: three timeouts of 5-second sleeps.
    expect(retryTries(60)).toBe(36);
    expect(retryTries(0.5)).toBe(3);
    const scripted = cli(['study', 'slurm', twoThreads, '--lease-timeout', '10']);
    expect(scripted.status).toBe(0);
    expect(readFileSync(join(twoThreads, 'slurm', 'train.sbatch'), 'utf8')).toMatch(
      /if \(\(status != 75 \|\| try >= 6\)\); then exit "\$status"; fi/,
    );
  });

  it('study run --offset without --index is refused (exit 2)', () => {
    const result = cli(['study', 'run', dir, '--offset', '2']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('tinyagent study: --offset goes with --index (see tinyagent study --help)\n');
  });

  it.each([
    ['--image', `x\n  evil: 1`, 'is not a container image reference (such as tinyagent:local)'],
    ['--image', 'tinyagent:local # comment', 'is not a container image reference (such as tinyagent:local)'],
    [
      '--claim',
      'studies"\n  evil: 1',
      "is not a PersistentVolumeClaim name (lower-case letters, digits, '-' and '.')",
    ],
  ])('study k8s %s %j is refused in one line (exit 2), nothing written', (flag, value, why) => {
    const result = cli(['study', 'k8s', dir, flag, value]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `${oneLine(`tinyagent study: ${flag} ${JSON.stringify(value)} ${why}`)} (see tinyagent study --help)\n`,
    );
    expect(existsSync(join(dir, 'k8s'))).toBe(false);
  });

  it('study k8s --image "" is refused as an empty flag in one line (exit 2), nothing written', () => {
    const result = cli(['study', 'k8s', dir, '--image', '']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^tinyagent study: --image is empty[^\n]*\n$/);
    expect(existsSync(join(dir, 'k8s'))).toBe(false);
  });
});

describe('a resubmission sends only the jobs not done', () => {
  it('training 0 and one of its evaluations done: the other training, and each seed after its own training if not done', async () => {
    const dir = join(root, 'partly-done');
    const plan = plannedAt(dir);
    const [seed0, seed1] = [evalsOf(plan, 0), evalsOf(plan, 1)];
    for (const index of [0, seed0[0]!])
      await execFileAsync(process.execPath, [BIN, 'study', 'run', dir, '--index', String(index)]);
    const sbatch = fakeSbatch('partly-done');
    const result = await cliChild(['study', 'slurm', dir, '--submit'], sbatch.env);
    expect(result.stderr).toBe('');
    const left = plan.jobs.length - 2;
    expect(result.stdout).toBe(
      `submitted ${left} jobs of ${plan.jobs.length}: training array 42 (--array=1) and evaluation arrays 43 (seed 0: --array=${seed0[1]}-${seed0.at(-1)}), 44 (seed 1: --array=${seed1[0]}-${seed1.at(-1)}, afterok:42_1)\n`,
    );
    const paths = { train: join(dir, 'slurm', 'train.sbatch'), eval: join(dir, 'slurm', 'eval.sbatch') };
    const expected = [
      ['--parsable', '--array=1', paths.train],
      ['--parsable', `--array=${seed0[1]}-${seed0.at(-1)}`, '--job-name=tinyagent-eval-seed0', paths.eval],
      [
        '--parsable',
        `--array=${seed1[0]}-${seed1.at(-1)}`,
        '--job-name=tinyagent-eval-seed1',
        '--kill-on-invalid-dep=yes',
        '--dependency=afterok:42_1',
        paths.eval,
      ],
    ];
    expect(sbatch.calls()).toEqual(expected);
    // submit.sh, written with them, sends the same.
    expect(readFileSync(join(dir, 'slurm', 'submit.sh'), 'utf8')).toContain(
      `not done when this was written (${left} of ${plan.jobs.length})`,
    );
    const submitted = await execFileAsync('bash', [join(dir, 'slurm', 'submit.sh')], { env: sbatch.env });
    expect(submitted.stdout).toBe('42 43 44\n');
    expect(sbatch.calls()).toEqual(expected);
  }, 120_000);
});

// The contract of the image and the manifests, run here: no Kubernetes is available. A planned
// study folder moved to another path (as a volume mounts it at /study) runs through the pods'
// commands: the image's ENTRYPOINT (node /app/bin/tinyagent.js, mapped to this checkout) and the
// container args, with $(JOB_COMPLETION_INDEX) set as Kubernetes sets it.
describe('the Kubernetes manifests of a study folder moved elsewhere', () => {
  it('two Indexed Jobs whose pods, run here on the moved folder, run every job; the study is then done', async () => {
    const planned = join(root, 'planned-here');
    const plan = plannedAt(planned, { steps: [0] });
    const trains = plan.jobs.filter((job) => job.kind === 'train').length;
    const paths = writeK8sManifests(plan, {
      image: 'tinyagent:local',
      claim: 'studies',
      parallelism: 3,
      evalCpus: 1,
      mem: '1500M',
    });
    const manifests = { train: readFileSync(paths.train, 'utf8'), eval: readFileSync(paths.eval, 'utf8') };
    for (const [kind, manifest] of Object.entries(manifests)) {
      const count = kind === 'train' ? trains : plan.jobs.length - trains;
      // Every line is a comment, `key: value` or a list item of a flow mapping, each string value a
      // JSON (YAML double-quoted) string.
      for (const line of manifest.trimEnd().split('\n'))
        expect(line).toMatch(/^(\s*#.*|\s*(- )?[A-Za-z]+:( .*)?|\s*- \{ .* \})$/);
      expect(manifest).toContain(
        `- { name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }`,
      );
      expect(manifest).toContain('kind: Job\n');
      expect(manifest).toContain('completionMode: Indexed\n');
      expect(manifest).toContain(`completions: ${count}\n`);
      expect(manifest).toContain('parallelism: 3\n');
      expect(manifest).toMatch(
        /# backoffLimitPerIndex and maxFailedIndexes need Kubernetes 1\.29\+.*\n\s+backoffLimitPerIndex: 6\n/,
      );
      expect(manifest).toContain(`maxFailedIndexes: ${count}\n`);
      expect(manifest).toContain('onExitCodes: { operator: In, values: [75] }');
      expect(manifest).toContain(
        `requests: { cpu: "${kind === 'train' ? (plan.jobs[0] as TrainJob).threads : 1}", memory: "1500Mi" }`,
      );
      expect(manifest).toContain('persistentVolumeClaim: { claimName: "studies" }');
      expect(manifest).toContain(`name: tinyagent-study-${plan.configHash.slice(0, 8)}-${kind}\n`);
      expect(manifest).not.toContain(planned);
      expect(manifest).not.toContain(BIN);
      expect(manifest).toContain(
        `args: ["study", "run", "/study", "--index", "$(JOB_COMPLETION_INDEX)", "--offset", "${kind === 'train' ? 0 : trains}"]`,
      );
    }
    expect(entrypoint()).toEqual(['node', '/app/bin/tinyagent.js']);
    expect(readFileSync(join(import.meta.dirname, '..', 'Dockerfile'), 'utf8')).toMatch(
      /^COPY package\.json package-lock\.json \.\/\nRUN npm ci /m,
    );

    const moved = join(root, 'mounted-elsewhere');
    renameSync(planned, moved);
    const pod = async (kind: 'train' | 'eval', index: number) => {
      const [node, ...args] = podCommand(manifests[kind], { index, study: moved });
      return execFileAsync(node!, args, { cwd: root });
    };
    const relocated = readPlan(moved);
    for (let index = 0; index < trains; index += 1)
      expect((await pod('train', index)).stdout).toBe(`job ${index} (${relocated.jobs[index]!.id}) done\n`);
    for (let index = 0; index < plan.jobs.length - trains; index += 1)
      expect((await pod('eval', index)).stdout).toBe(
        `job ${trains + index} (${relocated.jobs[trains + index]!.id}) done\n`,
      );
    expect(relocated.jobs.map((job) => jobState(relocated, job).state)).toEqual(
      relocated.jobs.map(() => 'done'),
    );
    // A pod past the end of its Job: refused, naming the job it would be.
    const past = pod('eval', plan.jobs.length - trains).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(await past).toMatchObject({
      code: 2,
      stderr: `tinyagent study: --index ${plan.jobs.length - trains} --offset ${trains} (job ${plan.jobs.length}) is out of range: the plan has jobs 0 to ${plan.jobs.length - 1} (see tinyagent study --help)\n`,
    });
    // Every job done: a submission sends nothing (sbatch is not even looked for).
    const none = await cliChild(['study', 'slurm', moved, '--submit'], {
      ...process.env,
      PATH: '/nonexistent',
    });
    expect(none.stderr).toBe('');
    expect(none.stdout).toBe(`${moved}: every job is done (${plan.jobs.length} jobs); nothing submitted\n`);
    expect(readFileSync(join(moved, 'slurm', 'submit.sh'), 'utf8')).toContain('nothing to submit');
  }, 180_000);
});
