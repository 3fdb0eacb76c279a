import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The one-way import flow (README "Layout", ../shared/spec/STYLE.md): experiments -> publish ->
 * analysis -> study -> eval / train -> agent -> gym -> lib. eval/ is statistics and result-file
 * I/O and imports only lib/; study/ (the job system of seed studies) reads trainings and
 * evaluations; analysis/ (the chapter's claims across a study's seeds) reads studies; publish/
 * (results files, figures, Markdown and the report page) reads analyses; experiments/ (the
 * chapter's scripts) sits above them; cli/ and bench/ (which times studies) on top, bin/ (the
 * executables) above them, and nothing but bin/ and the tests imports cli/.
 */
const ALLOWED: Record<string, readonly string[]> = {
  lib: [],
  gym: ['lib'],
  agent: ['gym', 'lib'],
  train: ['agent', 'gym', 'lib'],
  eval: ['lib'],
  study: ['eval', 'train', 'agent', 'gym', 'lib'],
  analysis: ['study', 'eval', 'train', 'agent', 'gym', 'lib'],
  publish: ['analysis', 'study', 'eval', 'train', 'agent', 'gym', 'lib'],
  experiments: ['publish', 'analysis', 'study', 'eval', 'train', 'agent', 'gym', 'lib'],
  bench: ['study', 'eval', 'train', 'agent', 'gym', 'lib'],
  cli: ['bench', 'experiments', 'publish', 'analysis', 'study', 'eval', 'train', 'agent', 'gym', 'lib'],
  bin: ['cli', 'lib'],
};

/**
 * The references to bin/ that start it as a child process (`new URL('../bin/tinyagent.js')`): a
 * study's every job runs through the CLI entry, here as under Slurm or Kubernetes, and the bench
 * times the CLI as a user runs it. A program run in another process, not a module loaded into
 * this one, so they are no import; listed so that another one is a decision, not an accident.
 */
const PROCESS_STARTS = [
  'study/runner.ts -> bin/tinyagent.js',
  'bench/viewer-screenshot.ts -> bin/tinyagent.js',
];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * Every relative module a file imports, as repository paths: static imports (type-only ones
 * included), re-exports, dynamic imports and `new URL(..., import.meta.url)` (a worker's entry),
 * less the `PROCESS_STARTS`.
 */
function importsOf(file: string): string[] {
  return referencesOf(file).filter((target) => !PROCESS_STARTS.includes(`${file} -> ${target}`));
}

function referencesOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:from\s+|import\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g),
  ].map((match) => match[1]!);
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)));
}

/**
 * The import circles of a graph (file -> the files it imports): its strongly connected
 * components of more than one file, or of one that imports itself (Tarjan, "Depth-first search
 * and linear graph algorithms", SIAM J. Comput. 1972), each sorted.
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('layout', () => {
  it('imports flow one way: no folder imports one above it, eval/ imports only lib/, only bin/ imports cli/', () => {
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

  it('has no import circles, type-only imports included', () => {
    const files = Object.keys(ALLOWED).flatMap(sourceFiles);
    expect(circles(new Map(files.map((file) => [file, importsOf(file)])))).toEqual([]);
  });

  it('finds circles: one of two files, one of three, a self-import; not a chain', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['a', 'c']],
      ['c', ['d']],
      ['d', ['e']],
      ['e', ['c', 'f']],
      ['f', []],
      ['g', ['g', 'f']],
    ]);
    expect(circles(graph).sort()).toEqual([['a', 'b'], ['c', 'd', 'e'], ['g']]);
    expect(
      circles(
        new Map([
          ['x', ['y']],
          ['y', ['z']],
          ['z', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('each process start is still there (the exception is not stale)', () => {
    for (const start of PROCESS_STARTS) {
      const [file, target] = start.split(' -> ') as [string, string];
      expect(referencesOf(file)).toContain(target);
    }
  });

  it('finds the edges it checks (the scan sees imports of every form)', () => {
    const edges = sourceFiles('train').flatMap(importsOf);
    expect(edges.some((target) => target.startsWith('agent'))).toBe(true);
    expect(
      sourceFiles('cli')
        .flatMap(importsOf)
        .some((target) => target.startsWith('eval')),
    ).toBe(true);
    // A type-only import, a re-export and a worker's entry.
    expect(importsOf('publish/sections/17.1.ts')).toContain(normalize('analysis/index.ts'));
    expect(importsOf('agent/model.ts')).toContain(normalize('agent/session.ts'));
    expect(importsOf('train/dataParallel.ts')).toContain(normalize('train/data-parallel-entry.js'));
  });
});
