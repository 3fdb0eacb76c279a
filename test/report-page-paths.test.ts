import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';

// The figure paths of a results JSON come from a file anyone may have edited: the report page
// reads specs only from inside the results folder, and its errors name the file, never its content.
const work = mkdtempSync(join(tmpdir(), 'tinyagent-report-paths-'));
const SECRET = 'SECRET-4c1d';

/** A results folder whose 17.2 lists one figure, `figure`, in its JSON and its Markdown. */
function resultsWith(name: string, figure: string, json?: string): string {
  const dir = join(work, name, 'results');
  mkdirSync(join(dir, 'figures'), { recursive: true });
  writeFileSync(
    join(dir, '17.2.json'),
    json ?? `${JSON.stringify({ section: '17.2', title: 'pass@k', seed: 0, figures: [figure] })}\n`,
  );
  writeFileSync(join(dir, '17.2.md'), `# 17.2 pass@k\n\n![f](${figure})\n`);
  return dir;
}

/** `npm run report` on a results folder: its status, stderr and page (when written). */
function report(resultsDir: string) {
  const outFile = join(resultsDir, '..', 'page', 'index.html');
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'publish', 'page', 'reportPage.ts'),
      '--results',
      resultsDir,
      '--out',
      outFile,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  let page: string | undefined;
  try {
    page = readFileSync(outFile, 'utf8');
  } catch {
    page = undefined;
  }
  return { status: result.status, stderr: result.stderr, page };
}

// An outside JSON file holding a secret, where `../` from the results folder reaches.
writeFileSync(join(work, 'secret.vl.json'), `${JSON.stringify({ secret: SECRET })}\n`);

describe('report page figure paths stay inside the results folder', () => {
  it.each([
    ['a ../ path', '../../secret.svg', 'is outside the results folder'],
    ['a ../ path under figures/', 'figures/../../../secret.svg', 'is outside the results folder'],
    ['an absolute path', join(work, 'secret.svg'), 'is outside the results folder'],
    ['/etc/passwd', '/etc/passwd', 'is outside the results folder'],
  ])('%s is refused in one line naming the JSON and the path, nothing written', (name, figure, why) => {
    const dir = resultsWith(name.replace(/\W+/g, '-'), figure);
    const { status, stderr, page } = report(dir);
    expect(stderr).toBe(
      `report: ${join(dir, '17.2.json')}: figure ${JSON.stringify(figure)} ${why}; a figure is a file under ${dir}\n`,
    );
    expect(status).toBe(1);
    expect(page).toBeUndefined();
  });

  it('a spec behind a symbolic link out of the folder is refused', () => {
    const dir = resultsWith('symlink', 'figures/f.svg');
    symlinkSync(join(work, 'secret.vl.json'), join(dir, 'figures', 'f.vl.json'));
    const { status, stderr, page } = report(dir);
    expect(stderr).toBe(
      `report: ${join(dir, '17.2.json')}: figure "figures/f.svg" has its spec behind a symbolic link out of the results folder; a figure is a file under ${dir}\n`,
    );
    expect(status).toBe(1);
    expect(page).toBeUndefined();
  });

  it('a spec that is a FIFO is refused, not read (the read would never end)', () => {
    const dir = resultsWith('fifo', 'figures/f.svg');
    expect(spawnSync('mkfifo', [join(dir, 'figures', 'f.vl.json')]).status).toBe(0);
    const { status, stderr } = report(dir);
    expect(stderr).toBe(
      `report: ${join(dir, '17.2.json')}: figure "figures/f.svg" has a spec ${join(dir, 'figures', 'f.vl.json')} that is not a regular file; a figure is a file under ${dir}\n`,
    );
    expect(status).toBe(1);
  });

  it('a spec inside the folder is drawn', () => {
    const dir = resultsWith('inside', 'figures/f.svg');
    writeFileSync(
      join(dir, 'figures', 'f.vl.json'),
      `${JSON.stringify({ mark: 'point', description: 'inside-7e' })}\n`,
    );
    const { status, stderr, page } = report(dir);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(page).toContain('inside-7e');
  });

  it('a results file that is not JSON is named with where it breaks, never with what it holds', () => {
    const dir = resultsWith('not-json', 'figures/f.svg', `root:x:0:0:${SECRET}:/root:/bin/bash\n`);
    const { status, stderr } = report(dir);
    expect(stderr).toBe(`report: ${join(dir, '17.2.json')} is not a JSON file (not valid JSON)\n`);
    expect(status).toBe(1);
    const broken = resultsWith('broken-json', 'figures/f.svg', `{"title": "${SECRET}",\n  x}\n`);
    expect(report(broken).stderr).toBe(
      `report: ${join(broken, '17.2.json')} is not a JSON file (not valid JSON at line 2, column 3)\n`,
    );
  });
});
