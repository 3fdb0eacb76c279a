import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NAMESPACES, SLURM } from './systemPackages.ts';
import { pidOf, sharedConfLines, startMunged, writeMungeKey } from '../../bench/slurm.ts';
import { processAlive } from '../../lib/processes.ts';

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One compute node: a slurmd in its own network, UTS and PID namespaces. */
export interface SlurmNode {
  /** Its Slurm NodeName and its hostname inside its UTS namespace. */
  name: string;
  /** Its address on the test's bridge, inside its network namespace. */
  address: string;
  /** The network namespace (`ip netns`), which outlives a killed node. */
  netns: string;
  /** The host's pid of the node's PID-namespace PID 1 (its slurmd); 0 while the node is killed. */
  pid: number;
}

export interface MultiNodeCluster {
  dir: string;
  /** SLURM_CONF for the clients; TINYAGENT_LEASE_TIMEOUT for the jobs (sbatch exports it). */
  env: NodeJS.ProcessEnv;
  nodes: SlurmNode[];
  /** SIGKILLs the node's namespace PID 1, so its slurmd and every job step on it end at once. */
  kill(node: SlurmNode): Promise<void>;
  /** SIGSTOPs every process of the node's PID namespace (a hung node); returns how many. */
  freeze(node: SlurmNode): number;
  /** SIGCONTs every process of the node's PID namespace. */
  thaw(node: SlurmNode): void;
  /** Starts a killed node's slurmd again in its network namespace; resolves once Slurm has it idle. */
  restart(node: SlurmNode): Promise<void>;
  /** The node's state as sinfo prints it (idle, allocated, down*, ...). */
  state(node: SlurmNode): Promise<string>;
  /** Ends every process by PID, deletes the namespaces and the bridge, removes the folder. */
  stop(): void;
}

/** Names of this run: a prefix with this process's pid, so that leftovers of a crashed run are told apart. */
const PREFIX = 'tinyagent-mn';
const LINK = { bridge: 'tamb', host: 'tamv', node: 'tamn' };

/** The command each needs and the Debian package that has it. */
const COMMANDS: ReadonlyArray<[string, string]> = [
  ['slurmctld', 'slurmctld'],
  ['slurmd', 'slurmd'],
  ['sbatch', 'slurm-client'],
  ['sinfo', 'slurm-client'],
  ['munged', 'munge'],
  ['ip', 'iproute2'],
  ['nsenter', 'util-linux'],
  ['unshare', 'util-linux'],
];

function checkInstalled(): void {
  const missing = COMMANDS.filter(
    ([name]) => spawnSync('sh', ['-c', `command -v ${name} || test -x /usr/sbin/${name}`]).status !== 0,
  );
  if (missing.length > 0)
    throw new Error(
      `the multi-node Slurm test needs ${missing.map(([name, pkg]) => `${name} (Debian package ${pkg})`).join(', ')}: apt-get install -y ${[...SLURM.packages, ...NAMESPACES.packages].join(' ')}`,
    );
  if (process.getuid?.() !== 0)
    throw new Error('the multi-node Slurm test makes network namespaces and starts slurmd: run it as root');
}

const ip = (...args: string[]) =>
  execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const ipQuiet = (...args: string[]) => spawnSync('ip', args, { stdio: 'ignore' });

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits (synchronously: it runs on 'exit' too) until every pid has exited, at most `seconds`. */
function awaitExit(pids: readonly number[], seconds: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const end = Date.now() + seconds * 1000; Date.now() < end && pids.some(running);)
    Atomics.wait(pause, 0, 0, 50);
}

/** The pids of the processes whose PID namespace is that of `pid` (which is one of them). */
function pidNamespaceMembers(pid: number): number[] {
  let ns: string;
  try {
    ns = readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/pid`) === ns) members.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return members;
}

/**
 * Removes what earlier runs of this fixture left when their process died before `stop`: their
 * network namespaces (with every process in them), links and bridges, daemons and folders. Only
 * names carrying the pid of a process that no longer runs are touched.
 */
function removeLeftovers(): void {
  const dead = (pid: string) => Number(pid) !== process.pid && !processAlive(Number(pid));
  const namespaces = ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter((name) => name.startsWith(`${PREFIX}-`));
  for (const netns of namespaces) {
    const pid = /^tinyagent-mn-(\d+)-/.exec(netns)?.[1];
    if (pid === undefined || !dead(pid)) continue;
    for (const member of ip('netns', 'pids', netns).split('\n').filter(Boolean))
      signal(Number(member), 'SIGKILL');
    ipQuiet('netns', 'del', netns);
  }
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const name = /^\d+:\s+([^:@\s]+)/.exec(line)?.[1];
    const pid = name === undefined ? undefined : /^tam[bvn](\d+)/.exec(name)?.[1];
    if (name !== undefined && pid !== undefined && dead(pid)) ipQuiet('link', 'del', name);
  }
  for (const name of readdirSync(tmpdir())) {
    const pid = new RegExp(`^${PREFIX}-(\\d+)-`).exec(name)?.[1];
    if (pid === undefined || !dead(pid)) continue;
    const dir = join(tmpdir(), name);
    for (const file of ['munge/munged.pid', 'slurmctld.pid']) {
      const daemon = pidOf(join(dir, file));
      // A recycled pid is another process: only one whose command line names this folder is ended.
      if (daemon !== undefined && readCmdline(daemon).includes(dir)) signal(daemon, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** The first 10.213.X.0/24 that no address or route of this machine is in, starting from one picked by our pid. */
function freeSubnet(): string {
  const used = `${ip('-4', '-o', 'addr', 'show')}\n${ip('-4', 'route', 'show', 'table', 'all')}`;
  for (let i = 0; i < 250; i += 1) {
    const x = 1 + ((process.pid + i) % 250);
    if (!used.includes(`10.213.${x}.`)) return `10.213.${x}`;
  }
  throw new Error('no free subnet 10.213.X.0/24 for the multi-node Slurm test');
}

/** A TCP port of the host that nothing listens on, from `first` up (slurmctld's; the nodes' ports are each in its own namespace). */
async function freePort(first: number): Promise<number> {
  for (let port = first; port < first + 100; port += 1) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port from ${first} for slurmctld`);
}

/** sinfo's state of every node, by name. */
async function nodeStates(env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  try {
    const { stdout } = await execFileAsync('sinfo', ['-h', '-N', '-o', '%N %T'], { env });
    return new Map(
      stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ') as [string, string]),
    );
  } catch {
    return new Map();
  }
}

/**
 * A real Slurm cluster of `nodes` compute nodes on this machine (bench/slurm.ts is the
 * single-node one; this one uses other ports, its own folder and munge socket, so both can run at
 * once). slurmctld and munged run in the host's namespaces; each node is a slurmd in a network
 * namespace of its own, joined to a bridge by a veth pair (its own address), in a UTS namespace
 * (its own hostname, so a job's claim names another host) and a PID namespace (so killing its
 * PID 1 ends slurmd and every job on it, as a lost node does). All share the file system.
 * Traffic goes only between the bridge's address and the nodes' addresses, all made here.
 */
export async function startMultiNodeSlurm({
  nodes: count = 2,
  cpus = 2,
  leaseTimeout = 10,
  slurmdTimeout = 10,
}: {
  nodes?: number;
  /** CPUs of each node (the machine's cores are shared by all of them). */
  cpus?: number;
  /** TINYAGENT_LEASE_TIMEOUT of the jobs, in seconds. */
  leaseTimeout?: number;
  /** Seconds slurmctld waits for an unresponsive slurmd before it sets the node DOWN. */
  slurmdTimeout?: number;
} = {}): Promise<MultiNodeCluster> {
  checkInstalled();
  removeLeftovers();
  const tag = `${PREFIX}-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), `${tag}-`));
  for (const sub of ['state', 'spool', 'munge', 'log']) mkdirSync(join(dir, sub), { recursive: true });
  chmodSync(join(dir, 'munge'), 0o700);
  const subnet = freeSubnet();
  const controllerAddress = `${subnet}.1`;
  const bridge = `${LINK.bridge}${process.pid}`;
  const nodes: SlurmNode[] = Array.from({ length: count }, (_, i) => ({
    name: `tinyagent-node${i + 1}`,
    address: `${subnet}.${i + 2}`,
    netns: `${tag}-n${i + 1}`,
    pid: 0,
  }));
  const daemons: number[] = [];
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    for (const node of nodes) {
      if (node.pid !== 0) signal(node.pid, 'SIGKILL');
      // Anything else left in the namespace (a job a frozen node still held) goes with it.
      for (const member of spawnSync('ip', ['netns', 'pids', node.netns], { encoding: 'utf8' })
        .stdout?.split('\n')
        .filter(Boolean) ?? [])
        signal(Number(member), 'SIGKILL');
      ipQuiet('netns', 'del', node.netns);
    }
    for (const pid of daemons.reverse()) signal(pid, 'SIGTERM');
    ipQuiet('link', 'del', bridge);
    for (const [i] of nodes.entries()) ipQuiet('link', 'del', `${LINK.host}${process.pid}x${i + 1}`);
    // slurmctld saves its state as it stops: the folder goes once it (and munged) has exited.
    awaitExit(daemons, 10);
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  process.on('exit', stop);
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${controllerAddress}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    for (const [i, node] of nodes.entries()) {
      const hostEnd = `${LINK.host}${process.pid}x${i + 1}`;
      const nodeEnd = `${LINK.node}${process.pid}x${i + 1}`;
      ip('netns', 'add', node.netns);
      ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', nodeEnd);
      ip('link', 'set', hostEnd, 'master', bridge, 'up');
      ip('link', 'set', nodeEnd, 'netns', node.netns);
      ip('-n', node.netns, 'addr', 'add', `${node.address}/24`, 'dev', nodeEnd);
      ip('-n', node.netns, 'link', 'set', nodeEnd, 'up');
      ip('-n', node.netns, 'link', 'set', 'lo', 'up');
    }
    const controllerPort = await freePort(26817);
    const key = writeMungeKey(dir);
    const socket = join(dir, 'munge', 'munge.socket');
    const conf = join(dir, 'slurm.conf');
    writeFileSync(
      conf,
      [
        'ClusterName=tinyagent-multinode',
        `SlurmctldHost=${hostname().split('.')[0]!}(${controllerAddress})`,
        // cred_expire is also how long a requeued job waits before it may start again (default 120 s).
        ...sharedConfLines(socket, ',cred_expire=20'),
        // A node that comes back (a restarted slurmd) is used again without an admin's scontrol.
        'ReturnToService=2',
        // Batch jobs are requeued after their node fails (also sbatch's default with JobRequeue=1).
        'JobRequeue=1',
        `SlurmdTimeout=${slurmdTimeout}`,
        `SlurmctldPort=${controllerPort}`,
        'SlurmdPort=26818',
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool', '%n')}`,
        `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${join(dir, 'slurmd-%n.pid')}`,
        `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
        `SlurmdLogFile=${join(dir, 'log', 'slurmd-%n.log')}`,
        // A requeued task appends to its log: the killed or taken-over attempt's lines stay readable.
        'JobFileAppend=1',
        // Memory in MB below the machine's (each node sees all of it), so a task's --mem fits.
        ...nodes.map(
          (node) =>
            `NodeName=${node.name} NodeAddr=${node.address} CPUs=${cpus} RealMemory=${Math.floor((0.8 * totalmem()) / 2 ** 20)} State=UNKNOWN`,
        ),
        // LLN: each task goes to the least loaded node, so that the jobs spread over the nodes.
        `PartitionName=debug Nodes=${nodes.map((node) => node.name).join(',')} Default=YES MaxTime=INFINITE State=UP LLN=YES`,
        '',
      ].join('\n'),
    );
    for (const node of nodes) mkdirSync(join(dir, 'spool', node.name), { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SLURM_CONF: conf,
      TINYAGENT_LEASE_TIMEOUT: String(leaseTimeout),
    };
    daemons.push(startMunged(dir, key, socket));
    execFileSync('slurmctld', ['-f', conf], { env, stdio: 'ignore' });
    for (let i = 0; i < 50 && pidOf(join(dir, 'slurmctld.pid')) === undefined; i += 1) await sleep(100);
    const controller = pidOf(join(dir, 'slurmctld.pid'));
    if (controller === undefined) throw new Error(`slurmctld did not start; see ${join(dir, 'log')}`);
    daemons.push(controller);

    const startNode = async (node: SlurmNode) => {
      const out = openSync(join(dir, 'log', `${node.name}.console`), 'a');
      // nsenter, not `ip netns exec`: that remounts /sys, hiding /sys/fs/cgroup from slurmd.
      const child = spawn(
        'nsenter',
        [
          `--net=/run/netns/${node.netns}`,
          'unshare',
          '--uts',
          '--pid',
          '--fork',
          '--mount-proc',
          'sh',
          '-c',
          `hostname ${node.name}; exec slurmd -D -f ${conf} -N ${node.name}`,
        ],
        { env, detached: true, stdio: ['ignore', out, out] },
      );
      closeSync(out);
      child.unref();
      const parent = child.pid!;
      // unshare --fork's child is the namespace's PID 1: read it from the parent's children.
      for (let i = 0; i < 100 && node.pid === 0; i += 1) {
        try {
          const first = Number(
            readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(' ')[0],
          );
          if (first > 0) node.pid = first;
        } catch {
          // not forked yet
        }
        if (node.pid === 0) await sleep(50);
      }
      if (node.pid === 0) throw new Error(`the node ${node.name} did not start; see ${join(dir, 'log')}`);
    };
    const waitForState = async (names: string[], pattern: RegExp, what: string, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const states = await nodeStates(env);
        if (names.every((name) => pattern.test(states.get(name) ?? ''))) return;
        await sleep(250);
      }
      throw new Error(`the nodes ${names.join(', ')} did not become ${what}; see ${join(dir, 'log')}`);
    };
    for (const node of nodes) await startNode(node);
    await waitForState(
      nodes.map((node) => node.name),
      /^idle$/,
      'idle',
      60_000,
    );

    const cluster: MultiNodeCluster = {
      dir,
      env,
      nodes,
      async kill(node) {
        const pid = node.pid;
        signal(pid, 'SIGKILL');
        node.pid = 0;
        for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i += 1) await sleep(50);
      },
      freeze(node) {
        // Twice: a process forked while the first pass ran is stopped by the second.
        const members = new Set<number>();
        for (let pass = 0; pass < 2; pass += 1)
          for (const pid of pidNamespaceMembers(node.pid)) {
            signal(pid, 'SIGSTOP');
            members.add(pid);
          }
        return members.size;
      },
      thaw(node) {
        for (const pid of pidNamespaceMembers(node.pid)) signal(pid, 'SIGCONT');
      },
      async restart(node) {
        if (node.pid !== 0) throw new Error(`the node ${node.name} runs; kill it first`);
        await startNode(node);
        await waitForState([node.name], /^idle$/, 'idle', 120_000);
      },
      async state(node) {
        return (await nodeStates(env)).get(node.name) ?? 'unknown';
      },
      stop,
    };
    return cluster;
  } catch (error) {
    stop();
    throw error;
  }
}

/** `scontrol show job ID` as one line of KEY=VALUE words (an array task is ARRAY_TASK). */
export async function showJob(env: NodeJS.ProcessEnv, id: string): Promise<Map<string, string>> {
  const { stdout } = await execFileAsync('scontrol', ['-o', 'show', 'job', id], { env });
  return new Map(
    stdout
      .trim()
      .split(/\s+/)
      .map(
        (word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] as [string, string],
      ),
  );
}
