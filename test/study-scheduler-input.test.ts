import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { k8sCommand, readPlan, writeK8sManifest, writePlan, writeSlurmScripts } from '../study/index.ts';
import { oneLine } from '../lib/text.ts';
import { BIN } from './support/child.ts';

// Every value `study slurm` and `study k8s` write into a script or a manifest comes from the user
// (the study path, --partition, --time, --image, --claim): each is quoted, or refused when no
// quoting can hold it, and nothing in it runs.
const root = mkdtempSync(join(tmpdir(), 'tinyagent-scheduler-input-'));
const INJECTED = 'touch PWNED';

const cli = (args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', ...options });

function plannedAt(dir: string) {
  writePlan(dir, { recipe: 'smoke', seeds: [0, 1], evalSeed: 1, steps: [0, 80] });
  return readPlan(dir);
}

/** Runs `bash -n` (syntax only) on a script; returns its stderr, '' when it parses. */
const bashSyntax = (path: string) => spawnSync('bash', ['-n', path], { encoding: 'utf8' }).stderr;

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
    expect(() => writeSlurmScripts(plan, { cpusPerTask: 1 })).toThrow(/holds a control character/);
    expect(() =>
      writeK8sManifest(plan, { image: 'tinyagent:local', claim: 'studies', parallelism: 1 }),
    ).toThrow(/holds a control character/);
  });
});

describe('a study folder whose path holds quotes, $(...), backquotes and a semicolon', () => {
  const hostile = `it's $(${INJECTED}) \`${INJECTED}\`; ${INJECTED} & "x"`;
  const dir = join(root, hostile);
  const cwd = join(root, 'quoted-cwd');
  mkdirSync(cwd);
  const plan = plannedAt(dir);

  it('study slurm writes scripts that parse, pass the path as one word and run nothing injected', () => {
    const paths = writeSlurmScripts(plan, { cpusPerTask: 1, partition: 'cpu', time: '01:00:00' });
    for (const path of [paths.train, paths.eval, paths.submit]) expect(bashSyntax(path)).toBe('');
    // A stand-in sbatch records its arguments, one a line, and answers a job id.
    const bin = join(root, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    const record = join(root, 'sbatch-args');
    writeFileSync(
      join(bin, 'sbatch'),
      `#!/bin/bash\nprintf '%s\\n' "$@" >> ${JSON.stringify(record)}\necho 42\n`,
    );
    chmodSync(join(bin, 'sbatch'), 0o755);
    const submitted = spawnSync('bash', [paths.submit], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` },
    });
    expect(submitted.stderr).toBe('');
    expect(submitted.stdout).toBe('42 42\n');
    expect(readFileSync(record, 'utf8').split('\n')).toEqual([
      '--parsable',
      paths.train,
      '--parsable',
      '--kill-on-invalid-dep=yes',
      '--dependency=afterok:42',
      paths.eval,
      '',
    ]);
    // An array task past the plan's end: the command reaches the study (it names the plan's
    // jobs) without running one.
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

  it('study k8s writes a manifest whose values are quoted scalars and whose command runs nothing injected', () => {
    const manifest = readFileSync(
      writeK8sManifest(plan, { image: 'registry.example/tinyagent:1', claim: 'studies', parallelism: 2 }),
      'utf8',
    );
    // Every line is a comment or `key: value`, each string value a JSON (YAML double-quoted) string.
    for (const line of manifest.trimEnd().split('\n'))
      expect(line).toMatch(/^(#.*|\s*(- )?[A-Za-z]+:( .*)?)$/);
    const value = (key: string) =>
      JSON.parse(
        manifest
          .split('\n')
          .find((line) => line.trim().startsWith(`${key}:`))!
          .split(`${key}: `)[1]!,
      );
    expect(value('image')).toBe('registry.example/tinyagent:1');
    expect(value('workingDir')).toBe(dir);
    expect(value('mountPath')).toBe(dir);
    const pod = spawnSync('/bin/sh', ['-c', k8sCommand(manifest)], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, JOB_COMPLETION_INDEX: '99' },
    });
    expect(pod.status).toBe(2);
    expect(pod.stderr).toMatch(/^tinyagent study: --index 99 is out of range: the plan has jobs 0 to /);
    expect(existsSync(join(cwd, 'PWNED'))).toBe(false);
  });
});

describe('flags written into a script or a manifest', () => {
  const dir = join(root, 'plain');
  const plan = plannedAt(dir);

  it.each([
    [{ partition: `cpu\n${INJECTED}` }, /--partition "cpu\\ntouch PWNED" is not a partition name/],
    [{ partition: 'cpu --wrap=x' }, /--partition "cpu --wrap=x" is not a partition name/],
    [
      { time: `01:00:00\n${INJECTED}` },
      /--time must be Slurm's \[D-\]HH\[:MM\[:SS\]\], got "01:00:00\\ntouch PWNED"/,
    ],
  ])('writeSlurmScripts refuses %j', (options, message) => {
    expect(() => writeSlurmScripts(plan, { cpusPerTask: 1, ...options })).toThrow(message);
    expect(existsSync(join(dir, 'slurm'))).toBe(false);
  });

  it.each([
    ['--image', `x\n  evil: 1`, 'is not a container image reference (such as tinyagent:local)'],
    ['--image', '', 'is not a container image reference (such as tinyagent:local)'],
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
});
