import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { fingerprint, fingerprintDifferences, initBackend, isFingerprint } from '../agent/index.ts';
import { codeText, sourcesSha256, SOURCE_FOLDERS } from '../agent/fingerprint.ts';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fingerprint-'));
  for (const folder of SOURCE_FOLDERS) mkdirSync(join(root, folder), { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

describe('fingerprint', () => {
  it('names the running wasm backend, its package version, the kernel hash and one thread', async () => {
    await initBackend({ preference: 'wasm' });
    const print = fingerprint();
    expect(isFingerprint(print)).toBe(true);
    expect(print.backend).toBe('wasm');
    expect(print.backendVersion).toBe('4.22.0');
    expect(print.tfjs).toBe('4.22.0');
    expect(print.kernel).toMatch(/^[0-9a-f]{64}$/);
    expect(print.threads).toBe('1');
    expect(print.sources).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the sources by path and content: a changed byte or a renamed file changes it', () => {
    const base = sourcesSha256(tree({ 'gym/a.ts': 'x', 'eval/b.ts': 'y' }));
    expect(sourcesSha256(tree({ 'gym/a.ts': 'x', 'eval/b.ts': 'y' }))).toBe(base);
    expect(sourcesSha256(tree({ 'gym/a.ts': 'x', 'eval/b.ts': 'z' }))).not.toBe(base);
    expect(sourcesSha256(tree({ 'gym/c.ts': 'x', 'eval/b.ts': 'y' }))).not.toBe(base);
  });

  it('hashes code, not comments or layout: a comment or a reflowed line keeps it, a changed string or regex does not', () => {
    const code = (text: string) => sourcesSha256(tree({ 'gym/a.ts': text, 'lib/w.wat': '(module) ;; x' }));
    const base = code("const a = 'http://x' / 2; // half\nconst r = /\\/*[/]/g;\n");
    expect(code("/** A doc. */\nconst a =\n  'http://x' / 2;\nconst r = /\\/*[/]/g; /* regex */\n")).toBe(
      base,
    );
    expect(code("const a = 'http://y' / 2;\nconst r = /\\/*[/]/g;\n")).not.toBe(base);
    expect(code("const a = 'http://x' / 2;\nconst r = /\\/*[/]/i;\n")).not.toBe(base);
    expect(code("const a = 'http://x' / 3;\nconst r = /\\/*[/]/g;\n")).not.toBe(base);
    // Other files count byte for byte.
    const wat = (text: string) => sourcesSha256(tree({ 'gym/a.ts': 'x', 'lib/w.wat': text }));
    expect(wat('(module) ;; y')).not.toBe(wat('(module) ;; x'));
    // Template literals, their nested expressions, and a division after a non-null assertion.
    expect(codeText('const t = `a ${b ? `c ${d}` : "}"} // e`; // f\nx = y[0]! / 2; // g\n')).toBe(
      'const t = `a ${b ? `c ${d}` : "}"} // e`; x = y[0]! / 2;',
    );
  });

  // Reference: TypeScript's own parser (the typescript package). For every source file that the
  // fingerprint reads, its code text parses to the same tokens as the file, holds no comment,
  // adds no parse error, and is its own code text.
  it("keeps every token of every source file, as TypeScript's parser reads them", () => {
    const files = execFileSync('git', ['ls-files', ...SOURCE_FOLDERS], { encoding: 'utf8' })
      .split('\n')
      .filter((path) => /\.(ts|js)$/.test(path));
    expect(files.length).toBeGreaterThan(100);
    const read = (path: string, text: string) => {
      const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
      const tokens: string[] = [];
      let comments = 0;
      const visit = (node: ts.Node): void => {
        if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
        const children = node.getChildren(file);
        if (children.length > 0) return children.forEach(visit);
        tokens.push(node.getText(file));
        comments += ts.getLeadingCommentRanges(text, node.getFullStart())?.length ?? 0;
      };
      visit(file);
      const errors = (file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length;
      return { tokens, comments, errors };
    };
    for (const path of files) {
      const text = readFileSync(path, 'utf8');
      const code = codeText(text);
      const [original, stripped] = [read(path, text), read(path, code)];
      expect(stripped.tokens, path).toEqual(original.tokens);
      expect(stripped.comments, path).toBe(0);
      expect(stripped.errors, path).toBeLessThanOrEqual(original.errors);
      expect(codeText(code), path).toBe(code);
    }
  });

  it('says which parts differ, and a missing fingerprint differs in every part', async () => {
    await initBackend({ preference: 'wasm' });
    const print = fingerprint();
    expect(fingerprintDifferences(print, { ...print })).toEqual([]);
    expect(fingerprintDifferences(print, { ...print, backend: 'tensorflow', threads: 'default' })).toEqual([
      'backend: wasm -> tensorflow',
      'threads: 1 -> default',
    ]);
    expect(fingerprintDifferences(undefined, print)).toHaveLength(7);
    expect(fingerprintDifferences(print, { ...print, kernel: 'off' })[0]).toBe(
      `kernel: ${print.kernel.slice(0, 12)} -> off`,
    );
    expect(isFingerprint({ ...print, threads: 1 })).toBe(false);
  });
});
