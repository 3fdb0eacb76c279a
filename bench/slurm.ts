import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { hostname, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { orUndefined } from '../lib/files.ts';

const execFileAsync = promisify(execFile);
/** The Debian packages of a Slurm cluster on this machine (`npm test` installs them for its Slurm tests). */
export const SLURM_PACKAGES: readonly string[] = ['slurmctld', 'slurmd', 'slurm-client', 'munge'];

export interface SlurmCluster {
  env: NodeJS.ProcessEnv;
  stop(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid a daemon wrote into `file`, or undefined before it has. */
export function pidOf(file: string): number | undefined {
  const pid = orUndefined(() => Number(readFileSync(file, 'utf8').trim()));
  return pid !== undefined && Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A munge key (1 KiB of random bytes, root-only) in `dir/munge/`; returns its path. */
export function writeMungeKey(dir: string): string {
  const key = join(dir, 'munge', 'munge.key');
  execFileSync('dd', ['if=/dev/urandom', `of=${key}`, 'bs=1024', 'count=1'], { stdio: 'ignore' });
  chmodSync(key, 0o400);
  return key;
}

/** Starts munged with `key` on `socket`, its pid, log and seed in `dir`; returns its pid. */
export function startMunged(dir: string, key: string, socket: string): number {
  const pidFile = join(dir, 'munge', 'munged.pid');
  const files = ['--pid-file', pidFile, '--log-file', join(dir, 'log', 'munged.log')];
  const args = ['--key-file', key, '--socket', socket, ...files, '--seed-file', join(dir, 'munge', 'seed')];
  execFileSync('munged', [...args, '--force'], { stdio: 'ignore' });
  return pidOf(pidFile)!;
}

/**
 * The slurm.conf lines both test clusters share: root daemons, munge on `socket` (`authInfo`
 * adds options), processes tracked without cgroups, one CPU a slot, scheduling every second,
 * no accounting, finished jobs kept 10 minutes for the tests to read.
 */
export function sharedConfLines(socket: string, authInfo = ''): string[] {
  const lines = (text: string) => text.trim().split(/\s+/);
  return [
    ...lines('SlurmUser=root SlurmdUser=root AuthType=auth/munge CredType=cred/munge'),
    `AuthInfo=socket=${socket}${authInfo}`,
    ...lines(`ProctrackType=proctrack/linuxproc TaskPlugin=task/none SelectType=select/cons_tres
      SelectTypeParameters=CR_CPU SchedulerType=sched/backfill SchedulerParameters=sched_interval=1 MpiDefault=none
      JobAcctGatherType=jobacct_gather/none AccountingStorageType=accounting_storage/none JobCompType=jobcomp/none
      MinJobAge=600 InactiveLimit=0 KillWait=5`),
  ];
}

/**
 * A real single-node Slurm cluster on localhost, its slurm.conf, state and spool in a temporary
 * folder, munged with its own key and socket, the daemons as root; `stop` ends them by pid.
 */
export async function startSlurm({
  cpus = 2,
  ports = [16817, 16818],
}: {
  cpus?: number;
  /** slurmctld's and slurmd's; another pair lets a second cluster (the bench's) run beside the tests'. */
  ports?: [number, number];
} = {}): Promise<SlurmCluster> {
  const missing = ['slurmctld', 'slurmd', 'sbatch', 'sinfo', 'munged'].filter(
    (name) => spawnSync('sh', ['-c', `command -v ${name} || test -x /usr/sbin/${name}`]).status !== 0,
  );
  if (missing.length > 0)
    throw new Error(
      `Slurm is not installed (missing ${missing.join(', ')}): apt-get install -y ${SLURM_PACKAGES.join(' ')}`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'tinyagent-slurm-'));
  for (const sub of ['state', 'spool', 'munge', 'log']) mkdirSync(join(dir, sub), { recursive: true });
  chmodSync(join(dir, 'munge'), 0o700);
  const host = hostname().split('.')[0]!;
  const key = writeMungeKey(dir);
  const socket = join(dir, 'munge', 'munge.socket');
  const conf = join(dir, 'slurm.conf');
  writeFileSync(
    conf,
    [
      'ClusterName=tinyagent',
      `SlurmctldHost=${host}(127.0.0.1)`,
      ...sharedConfLines(socket),
      'ReturnToService=2',
      `SlurmctldPort=${ports[0]}`,
      `SlurmdPort=${ports[1]}`,
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'log', 'slurmd.log')}`,
      // Memory in MB, below the machine's so that slurmd accepts it: a task's --mem is checked against it.
      `NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${Math.floor((0.8 * totalmem()) / 2 ** 20)} State=UNKNOWN`,
      `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  const env = { ...process.env, SLURM_CONF: conf };
  const pids: number[] = [];
  // A daemon already gone is no error.
  const stop = () => {
    for (const pid of pids.reverse()) orUndefined(() => process.kill(pid, 'SIGTERM'));
  };
  try {
    pids.push(startMunged(dir, key, socket));
    execFileSync('slurmctld', ['-f', conf], { env, stdio: 'ignore' });
    execFileSync('slurmd', ['-f', conf], { env, stdio: 'ignore' });
    for (const file of ['slurmctld.pid', 'slurmd.pid']) {
      for (let i = 0; i < 50 && pidOf(join(dir, file)) === undefined; i += 1) await sleep(100);
      const pid = pidOf(join(dir, file));
      if (pid === undefined) throw new Error(`${file} was not written; see ${join(dir, 'log')}`);
      pids.push(pid);
    }
    for (let i = 0; i < 120; i += 1) {
      const state = spawnSync('sinfo', ['-h', '-N', '-o', '%T'], { env, encoding: 'utf8' }).stdout.trim();
      if (state === 'idle') return { env, stop };
      await sleep(250);
    }
    throw new Error(`the Slurm node did not become idle; see ${join(dir, 'log')}`);
  } catch (error) {
    stop();
    throw error;
  }
}

/** Waits until squeue shows no job of this cluster; false on timeout or on a dependency that can never be met. */
export async function waitForQueue(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const { stdout } = await execFileAsync('squeue', ['-h', '-o', '%i %T %r'], { env });
      if (stdout.trim() === '') return true;
      if (stdout.includes('DependencyNeverSatisfied')) return false;
    } catch {
      // slurmctld busy: asked again
    }
    await sleep(1000);
  }
  return false;
}
