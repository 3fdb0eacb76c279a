#!/usr/bin/env node
// Entry point of the `tinyagent` command: loads the TypeScript sources through tsx,
// so that `npx tinyagent ...` works right after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';
import { installInternalErrorHandler } from '../lib/internalError.js';

const command = process.argv[2] ?? '';

// A reader that closes early (`tinyagent tasks | head`) is not an error. Output that cannot be
// written (a full disk, /dev/full) is the environment's fault, not a bug: one line, exit code 1.
const outputFailed = (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  process.stderr.write(`tinyagent ${command}: cannot write to standard output: ${error.message}\n`);
  process.exit(1);
};
process.stdout.on('error', outputFailed);

// Errors that escape `main` end in one line and exit code 3 (lib/internalError.js).
const internal = installInternalErrorHandler(command, (error) => {
  if (error?.syscall === 'write' && typeof error.code === 'string' && error.fd === 1) outputFailed(error);
});

register();
try {
  const { main } = await import('../cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  internal(error);
}
