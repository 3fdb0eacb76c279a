import { constants, hostname } from 'node:os';

/**
 * Whether a process of this machine with that pid runs: signal 0 only asks (EPERM: it runs, as
 * another user). Only a positive integer names one process: `kill(0, sig)` signals this process's
 * group and `kill(-1, sig)` every process we may signal, so both "succeed"; a lock file naming
 * such a pid (or 1.5, or NaN) names no process and is not alive.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * What this host can tell of a lock's holder by its pid: `alive` or `dead` when it names this
 * host, undefined when it names another, whose processes cannot be asked from here (a study
 * folder's claims judge those by their renewals: study/leases.ts).
 */
export function localHolder(holder: {
  readonly pid: number;
  readonly host: string;
}): 'alive' | 'dead' | undefined {
  if (holder.host !== hostname()) return undefined;
  return processAlive(holder.pid) ? 'alive' : 'dead';
}

/**
 * Whether a lock's holder may still run: on this host, when its pid does; a holder on another
 * host (a training's run folder on shared storage) cannot be checked from here and counts as alive.
 */
export function holderAlive(holder: { readonly pid: number; readonly host: string }): boolean {
  return localHolder(holder) !== 'dead';
}

/** The signals that stop a job: a scheduler's cancel (Slurm's scancel sends SIGTERM, then SIGKILL) and Ctrl-C. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * On SIGTERM or SIGINT, runs `cleanUp(signal)` (which may wait), then ends the process as the
 * signal would have: exit 128 + its number (143, 130). A second signal meanwhile ends it at once.
 * Returns the function that removes the handlers, restoring the default of dying at once.
 */
export function onStopSignal(cleanUp: (signal: NodeJS.Signals) => void | Promise<void>): () => void {
  let stopping = false;
  const exit = (signal: NodeJS.Signals) => process.exit(128 + (constants.signals[signal] ?? 0));
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) exit(signal);
    stopping = true;
    void Promise.resolve()
      .then(() => cleanUp(signal))
      .finally(() => exit(signal));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, handler);
  };
}
