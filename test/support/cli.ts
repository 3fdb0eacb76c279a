import { expect } from 'vitest';
import { main } from '../../cli/main.ts';

/** Runs the `tinyagent` CLI in-process, capturing stdout and stderr. */
export async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
}

/**
 * Runs the CLI and checks the documented contract of a failure: the exit code, and exactly one
 * stderr line `tinyagent <cmd>: ...` of bounded length, matching `message`. Returns the line.
 */
export async function expectCliError(argv: string[], code: number, message: RegExp): Promise<string> {
  const result = await cli(argv);
  expect(result.code, argv.join(' ')).toBe(code);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, argv.join(' ')).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^tinyagent ${argv[0]}: `));
  expect(lines[0]).toMatch(message);
  expect(lines[0]!.length).toBeLessThan(700);
  return lines[0]!;
}

/**
 * The training config fields of the tests' tiny runs (seconds each): small batches and groups,
 * one step per segment, one held-out episode per task. Each test adds its steps, evalEvery and
 * threads.
 */
export const TINY_TRAINING = {
  bcBatchSize: 4,
  groupSize: 2,
  segmentSteps: 1,
  evalEpisodesPerTask: 1,
} as const;
