import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe("the README's examples are safe to paste in any folder", () => {
  it('no example runs `npx tinyagent` (outside the checkout npx asks the registry for that name)', () => {
    for (const doc of DOCS) {
      const text = readFileSync(join(ROOT, doc), 'utf8').replace(
        /`npx\s+tinyagent` outside the checkout/g,
        '',
      );
      expect(text, doc).not.toMatch(/npx\s+tinyagent/);
    }
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(
      /`npm link` in the checkout puts it on your PATH/,
    );
  });

  it('package.json names the tinyagent bin, and it runs from another folder without the checkout as its cwd', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ tinyagent: 'bin/tinyagent.js' });
    const elsewhere = mkdtempSync(join(tmpdir(), 'tinyagent-cwd-'));
    const result = spawnSync(process.execPath, [join(ROOT, pkg.bin.tinyagent!), 'tasks'], {
      cwd: elsewhere,
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.split('\n')[1]).toMatch(/^0\s+average\s+zero/);
  });
});
