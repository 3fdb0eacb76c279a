#!/usr/bin/env node
// Entry point of the `tinyagent` command: loads the TypeScript sources through tsx,
// so that `npx tinyagent ...` works right after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

const command = process.argv[2] ?? '';

// A reader that closes early (`tinyagent tasks | head`) is not an error. Output that cannot be
// written (a full disk, /dev/full) is the environment's fault, not a bug: one line, exit code 1.
const outputFailed = (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  process.stderr.write(`tinyagent ${command}: cannot write to standard output: ${error.message}\n`);
  process.exit(1);
};
process.stdout.on('error', outputFailed);

// Errors that escape `main` (a worker thread, a stray callback) still end in one line and exit
// code 3. Registered first, so these run before the handlers that the wasm backend installs,
// which rethrow the error and make Node print a line of its minified source (exit 7).
const internal = (error) => {
  if (error?.syscall === 'write' && typeof error.code === 'string' && error.fd === 1) outputFailed(error);
  const debug = process.env.TINYAGENT_DEBUG === '1';
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error))
    .replace(/\s+/g, ' ')
    .slice(0, 500);
  process.stderr.write(
    `tinyagent ${command}: internal error: ${message}${debug ? '' : ' (TINYAGENT_DEBUG=1 shows the stack)'}\n`,
  );
  if (debug && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(3);
};
process.on('uncaughtException', internal);
process.on('unhandledRejection', internal);

register();
try {
  const { main } = await import('../cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  internal(error);
}
