import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The one-way import flow (README "Layout", ../shared/spec/STYLE.md): experiments -> eval / train
 * -> agent -> gym -> lib. eval/ is statistics and result-file I/O and imports only lib/; cli/ and
 * bench/ sit on top, and nothing but the tests imports cli/.
 */
const ALLOWED: Record<string, readonly string[]> = {
  lib: [],
  gym: ['lib'],
  agent: ['gym', 'lib'],
  train: ['agent', 'gym', 'lib'],
  eval: ['lib'],
  // study/ (seed studies) sits beside experiments/: each may use the other's helpers.
  experiments: ['study', 'eval', 'train', 'agent', 'gym', 'lib'],
  study: ['experiments', 'eval', 'train', 'agent', 'gym', 'lib'],
  bench: ['eval', 'train', 'agent', 'gym', 'lib'],
  cli: ['bench', 'study', 'eval', 'train', 'agent', 'gym', 'lib'],
};

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Every relative module a file imports (static, dynamic and `new URL(..., import.meta.url)` workers), as repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:from\s+|import\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g),
  ].map((match) => match[1]!);
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)));
}

describe('layout', () => {
  it('imports flow one way: no folder imports one above it, eval/ imports only lib/, nothing imports cli/', () => {
    const against: string[] = [];
    for (const [folder, allowed] of Object.entries(ALLOWED)) {
      for (const file of sourceFiles(folder)) {
        for (const target of importsOf(file)) {
          const targetFolder = target.split(/[\\/]/)[0]!;
          if (targetFolder in ALLOWED && targetFolder !== folder && !allowed.includes(targetFolder))
            against.push(`${file} -> ${target}`);
        }
      }
    }
    expect(against).toEqual([]);
  });

  it('finds the edges it checks (the scan sees imports of every form)', () => {
    const edges = sourceFiles('train').flatMap(importsOf);
    expect(edges.some((target) => target.startsWith('agent'))).toBe(true);
    expect(
      sourceFiles('cli')
        .flatMap(importsOf)
        .some((target) => target.startsWith('eval')),
    ).toBe(true);
  });
});
