import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The CLI's entry point, as a user runs it. */
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'tinyagent.js');

/** Runs the CLI in a child process without blocking the test's worker (a study takes minutes). */
export const cliChild = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });

/** Node with tsx on `args` (a script and its flags) in the checkout, in a child process, so that minutes of computing never stall the test's worker. */
export const nodeChild = (args: string[]) =>
  new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (status) => resolve({ status, stderr }));
  });
