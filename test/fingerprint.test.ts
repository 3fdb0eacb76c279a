import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint, fingerprintDifferences, initBackend, isFingerprint } from '../agent/index.ts';
import { sourcesSha256, SOURCE_FOLDERS } from '../agent/fingerprint.ts';

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
