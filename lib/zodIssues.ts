import type { z } from 'zod';
import { clip } from './text.ts';

/** Issues past this many are counted, not listed: a hostile file cannot make a message of any length. */
const MAX_LISTED = 5;

/**
 * zod issues as one line, each naming the field it is about:
 * `config.maxTurns: Too small: expected number to be >=1; config.maxTurn: unknown field`.
 *
 * `where` names the value parsed and starts every field's path (`config`, `harness`); leave it
 * empty when the caller's message already says where (`manifest.json: variables.0: ...`). An
 * unknown key is reported once per key, by name, since the key is what the user has to fix. The
 * one formatter of the project, so every config, harness and manifest error reads the same.
 *
 * @example formatZodIssues(result.error.issues, { where: 'config' })
 */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[], { where = '' } = {}): string {
  const problems: string[] = [];
  for (const issue of issues) {
    const path = [where, ...issue.path.map(String)].filter((part) => part !== '');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push(`${[...path, clip(key)].join('.')}: unknown field`);
    } else {
      problems.push(`${path.length > 0 ? path.join('.') : '(top level)'}: ${issue.message}`);
    }
  }
  const more = problems.length - MAX_LISTED;
  return problems.slice(0, MAX_LISTED).join('; ') + (more > 0 ? `; and ${more} more` : '');
}
