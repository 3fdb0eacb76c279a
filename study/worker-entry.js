// Entry of a `study run --jobs N` worker process (study/worker.ts): the child needs its own
// TypeScript loader. Errors that escape a job end in one line and exit code 3, as in
// bin/tinyagent.js, registered before the handlers the wasm backend installs; while a job runs,
// the line goes into the job's log.
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
