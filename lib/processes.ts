import { constants, hostname } from 'node:os';

/**
 * Whether a process of this machine with that pid runs: signal 0 only asks (EPERM: it runs, as
 * another user). Only a positive integer names one process (`kill(0)` and `kill(-1)` "succeed").
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
 * Whether a lock's holder may still run: on this host, when its pid does; a holder on another host
 * cannot be asked from here and counts as alive (a study's leases judge those by their renewals).
 */
export function holderAlive(holder: { readonly pid: number; readonly host: string }): boolean {
  return holder.host !== hostname() || processAlive(holder.pid);
}

/** The signals that stop a job: a scheduler's cancel (Slurm's scancel sends SIGTERM, then SIGKILL) and Ctrl-C. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * On SIGTERM or SIGINT, runs `cleanUp(signal)` (which may wait), then exits as the signal would
 * have (128 + its number); a second signal ends it at once. Returns what removes the handlers.
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
