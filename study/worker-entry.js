// Entry of a `study run --jobs N` worker process (study/worker.ts), with its own TypeScript loader
// and, first, bin/tinyagent.js's last-resort error line (into the job's log while a job runs).
import { register } from 'tsx/esm/api';
import { installInternalErrorHandler } from '../lib/internalError.js';

installInternalErrorHandler('study');

register();
try {
  const { serveJobs } = await import('./worker.ts');
  await serveJobs(process.argv[2], Number(process.argv[3]));
} catch (error) {
  // readPlan or the backend failed before any job: the line is the first job's log (runner.ts).
  const { errorKind, errorLine, EXIT } = await import('../lib/errors.ts');
  const kind = errorKind(error);
  process.stderr.write(`tinyagent study: ${errorLine(error, kind)}\n`);
  process.exit(EXIT[kind]);
}
