#!/usr/bin/env node
// Entry point of the `tinyagent` command: loads the TypeScript sources through tsx, in the
// checkout right after `npm ci` (no build step) and in an installed package alike, which holds
// the same sources (README, "Installing the command and the library elsewhere").
import { installInternalErrorHandler, isOutputError, outputFailed } from '../lib/internalError.js';

const command = process.argv[2] ?? '';
const label = command === '' || command.startsWith('-') ? 'tinyagent' : `tinyagent ${command}`;

// A reader that closes early is not an error; a failed write to standard output is exit 1.
const onOutputError = outputFailed(label);
process.stdout.on('error', onOutputError);

// Errors that escape `main` end in one line and exit code 3 (lib/internalError.js).
const internal = installInternalErrorHandler(command, (error) => {
  if (isOutputError(error)) onOutputError(error);
});

// The TypeScript loader (esbuild) asks for the current folder as it loads: a folder deleted
// under the shell would end in its stack trace. Said here in one line, exit 1 (the environment's).
try {
  process.cwd();
} catch (error) {
  process.stderr.write(
    `${label}: the current folder no longer exists (${error.code ?? error.message}); cd into one that does\n`,
  );
  process.exit(1);
}

const { register } = await import('tsx/esm/api');
register();
try {
  const { main } = await import('../cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  internal(error);
}
