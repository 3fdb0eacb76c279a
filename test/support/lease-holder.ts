import { claimJob } from '../../study/leases.ts';

// A process that claims job `jobId` of the study folder `dir` with a lease of `timeout` seconds,
// prints `held` (or `not held`) and keeps the lease, renewing it, until it is killed.
const [dir, jobId, timeout] = process.argv.slice(2) as [string, string, string];
const claim = await claimJob(dir, jobId, { timeout: Number(timeout) });
process.stdout.write('heldBy' in claim ? 'not held\n' : 'held\n');
setInterval(() => {}, 1000);
