import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDeadTemporaries, writeFilesAtomic } from '../lib/atomic.ts';
import { resultPairMatches, writeResults } from '../publish/results.ts';
import { ROOT } from '../lib/paths.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tinyagent-results-'));
  folders.push(folder);
  return folder;
}

/** A pid that no process has: far above Linux's default pid_max of 4,194,304. */
const DEAD_PID = 999_999_999;

function script(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('results files', () => {
  it('writes a batch all or nothing: when one file cannot be written, none of them changes', () => {
    const dir = tempFolder();
    writeFileSync(join(dir, 'a.json'), 'old a');
    writeFileSync(join(dir, 'blocker'), 'a file where a folder is needed');
    expect(() =>
      writeFilesAtomic([
        { path: join(dir, 'a.json'), content: 'new a' },
        { path: join(dir, 'blocker', 'b.md'), content: 'new b' },
      ]),
    ).toThrow(new RegExp(`^cannot write ${join(dir, 'blocker', 'b.md')}: E(EXIST|NOTDIR)`));
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('old a');
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'blocker']);
  });

  it("removes a dead writer's temporaries and keeps a live one's", () => {
    const dir = tempFolder();
    writeFileSync(join(dir, `.17.1.json.${DEAD_PID}.3.tmp`), '{');
    writeFileSync(join(dir, `.17.1.md.${process.pid}.4.tmp`), '#');
    writeFileSync(join(dir, 'keep.tmp'), 'not a temporary of ours');
    expect(removeDeadTemporaries(dir)).toEqual([`.17.1.json.${DEAD_PID}.3.tmp`]);
    expect(readdirSync(dir).sort()).toEqual([`.17.1.md.${process.pid}.4.tmp`, 'keep.tmp']);
  });

  it('writes the JSON with the sha256 of its Markdown, so a pair split by a kill is told apart', () => {
    const dir = tempFolder();
    writeFileSync(join(dir, `.x.json.${DEAD_PID}.1.tmp`), '{');
    const output = {
      section: 'x',
      title: 'test',
      seed: 5,
      smoke: true,
      config: {},
      numbers: { a: 1 },
      markdown: 'body',
    };
    writeResults(dir, output);
    expect(readdirSync(dir).sort()).toEqual(['x.json', 'x.md']);
    expect(resultPairMatches(join(dir, 'x.json'), join(dir, 'x.md'))).toBe(true);
    // A later run killed after its Markdown was renamed but before its JSON was: seed 1's Markdown beside seed 5's JSON.
    const json = readFileSync(join(dir, 'x.json'), 'utf8');
    writeResults(dir, { ...output, seed: 1 });
    writeFileSync(join(dir, 'x.json'), json);
    expect(resultPairMatches(join(dir, 'x.json'), join(dir, 'x.md'))).toBe(false);
  });

  it('17.2 and 17.3 refuse a bad seed and an unknown flag (exit 2) and rewrite nothing; test:repro refuses an unknown flag', () => {
    const committed = ['17.2', '17.3'].map((section) =>
      readFileSync(join(ROOT, 'results', `${section}.json`), 'utf8'),
    );
    const cases: Array<[string[], RegExp]> = [
      [['experiments/17.2.ts', '--seed', 'abc'], /^exp:17\.2: --seed must be a decimal integer/],
      [
        ['experiments/17.3.ts', '--bogus'],
        /^exp:17\.3: unknown flag '--bogus' \(options: --seed S, --smoke, --out DIR\)/,
      ],
      [
        ['experiments/repro.ts', '--bogus'],
        /^test:repro: unknown flag '--bogus' \(options: --update-smoke, --rebaseline\)/,
      ],
      [
        ['experiments/repro.ts', '--rebaseline', '--update-smoke'],
        /^test:repro: --rebaseline rewrites results\/smoke\/ too: give one of --update-smoke, --rebaseline$/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = script(args);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(message);
    }
    expect(
      ['17.2', '17.3'].map((section) => readFileSync(join(ROOT, 'results', `${section}.json`), 'utf8')),
    ).toEqual(committed);
  });

  it('17.2 takes --seed, --smoke and --out', () => {
    const out = tempFolder();
    const result = script(['experiments/17.2.ts', '--seed', '3', '--smoke', '--out', out]);
    expect(result.status, result.stderr).toBe(0);
    const written = JSON.parse(readFileSync(join(out, '17.2.json'), 'utf8'));
    expect([written.seed, written.smoke]).toEqual([3, true]);
    expect(existsSync(join(out, '17.2.md'))).toBe(true);
  });
});
