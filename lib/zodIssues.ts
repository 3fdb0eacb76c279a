import type { z } from 'zod';
import { clip } from './text.ts';

/** Issues past this many are counted, not listed: a hostile file cannot make a message of any length. */
const MAX_LISTED = 5;

/**
 * zod issues as one line, each naming its field after `where` (empty when the caller's message
 * says where), an unknown key by name: `config.maxTurns: Too small: ...; config.maxTurn: unknown field`.
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
