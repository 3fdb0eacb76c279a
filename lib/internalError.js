/**
 * The last-resort error line of every process the project starts (bin/tinyagent.js, the study's
 * workers): an error that escapes ends in one line, exit 3. Installed before the TypeScript loader,
 * so it runs before the wasm backend's handlers, which rethrow (exit 7). `before(error)` may
 * handle an error first (a failed write to standard output). Returns the handler.
 */
export function installInternalErrorHandler(command, before = () => {}) {
  const internal = (error) => {
    before(error);
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
  return internal;
}

/**
 * The handler of a failed write to standard output for a process whose lines begin `label`: a
 * reader that closes early (`| head`) is exit 0; output that cannot be written (/dev/full) exit 1.
 */
export function outputFailed(label) {
  return (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`${label}: cannot write to standard output: ${error.message}\n`);
    process.exit(1);
  };
}

/** Whether an error that escaped is a failed write to standard output (file descriptor 1). */
export function isOutputError(error) {
  return error?.syscall === 'write' && typeof error.code === 'string' && error.fd === 1;
}
