#!/usr/bin/env node
// Entry point of the `tinyagent` command: loads the TypeScript sources through tsx, in the
// checkout right after `npm ci` (no build step) and in an installed package alike, which holds
// the same sources (README, "Installing the command and the library elsewhere").
import { register } from 'tsx/esm/api';
import { installInternalErrorHandler, isOutputError, outputFailed } from '../lib/internalError.js';

const command = process.argv[2] ?? '';

// A reader that closes early is not an error; a failed write to standard output is exit 1.
const onOutputError = outputFailed(`tinyagent ${command}`);
process.stdout.on('error', onOutputError);

// Errors that escape `main` end in one line and exit code 3 (lib/internalError.js).
const internal = installInternalErrorHandler(command, (error) => {
  if (isOutputError(error)) onOutputError(error);
});

register();
try {
  const { main } = await import('../cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  internal(error);
}
