import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';

/** The one timestamp of a report (study.json's generatedAt), its value blanked. */
const GENERATED_AT = /^(\s*"generatedAt": )"[^"\n]*"/m;

/** Every file of a study's `results/` (study.json, study.md, the figure and its spec), by path, as text with generatedAt blanked. */
export function reportFiles(dir: string): Map<string, string> {
  const root = join(dir, 'results');
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(root, path), readFileSync(path, 'utf8').replace(GENERATED_AT, '$1""'));
  }
  return files;
}

/**
 * Expects the report of the study in `dir` byte-identical to that of `reference`, generatedAt
 * aside: the same files, each the same text.
 */
export function expectSameReport(dir: string, reference: string): void {
  const [a, b] = [reportFiles(dir), reportFiles(reference)];
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  expect(a.has('study.json') && a.get('study.json')!.includes('"generatedAt": ""')).toBe(true);
  for (const [name, text] of b) expect(a.get(name), name).toBe(text);
}
