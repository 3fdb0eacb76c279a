#!/usr/bin/env node
// Entry point of the `tinyagent` command: loads the TypeScript sources through tsx,
// so that `npx tinyagent ...` works right after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

// A reader that closes early (`tinyagent tasks | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// Errors that escape `main` (a worker thread, a stray callback) still end in one line and exit
// code 3. Registered first, so these run before the handlers that the wasm backend installs,
// which rethrow the error and make Node print a line of its minified source (exit 7).
const command = process.argv[2] ?? '';
const internal = (error) => {
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
