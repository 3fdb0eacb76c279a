import { hostname } from 'node:os';

/** Whether a process of this machine with that pid runs: signal 0 only asks (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a lock's holder may still run: on this host, when its pid does; a holder on another
 * host (a shared folder under Slurm or Kubernetes) cannot be checked from here and counts as alive.
 */
export function holderAlive(holder: { readonly pid: number; readonly host: string }): boolean {
  return holder.host !== hostname() || processAlive(holder.pid);
}
