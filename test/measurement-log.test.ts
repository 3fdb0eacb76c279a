import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LOG_SOURCES,
  MEASUREMENT_LOG,
  REGION_END,
  REGION_START,
  logNumber,
  main,
  measurementTables,
  regeneratedLog,
  withTables,
} from '../experiments/measurement-log.ts';
import { InputError } from '../lib/errors.ts';
import { figuresNoResultHolds } from './support/numbers.ts';

const ROOT = join(import.meta.dirname, '..');
const committed = () => readFileSync(join(ROOT, MEASUREMENT_LOG), 'utf8');
const results = (file: string) =>
  JSON.parse(readFileSync(join(ROOT, 'results', file), 'utf8')) as Record<string, any>;

const copies: string[] = [];
afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository of the log and its results files alone, with `edit` applied to a results file. */
function copyOfRepository(edit?: { file: string; change: (json: Record<string, any>) => void }): string {
  const root = mkdtempSync(join(tmpdir(), 'measurement-log-'));
  copies.push(root);
  mkdirSync(join(root, 'results'));
  mkdirSync(join(root, 'docs'));
  copyFileSync(join(ROOT, MEASUREMENT_LOG), join(root, MEASUREMENT_LOG));
  for (const file of LOG_SOURCES) {
    const json = results(file);
    if (edit?.file === file) edit.change(json);
    writeFileSync(join(root, 'results', file), JSON.stringify(json));
  }
  return root;
}

describe('docs/MEASUREMENTS.md (npm run docs:measurements)', () => {
  it('the committed log is what the committed results files make (else: npm run docs:measurements)', () => {
    expect(regeneratedLog(ROOT)).toBe(committed());
  });

  it('a regenerated results file makes the committed log stale, and the script brings it back in line', () => {
    const root = copyOfRepository({
      file: 'bench.json',
      change: (json) => (json['figures']['train']['trainStepMsOneThread'] = 312.4),
    });
    expect(regeneratedLog(root)).not.toBe(committed());
    main({ root });
    const written = readFileSync(join(root, MEASUREMENT_LOG), 'utf8');
    expect(written).toContain('| training step, one thread | 312 ms | `trainStepMsOneThread` |');
    expect(written).not.toContain('| training step, one thread | 281 ms |');
    expect(regeneratedLog(root)).toBe(written);
  });

  it('keeps the dated notes outside the generated region as they are', () => {
    const log = `# Log\n\nbefore\n\n${REGION_START}\nold tables\n${REGION_END}\n\n## Notes\n\nafter 1.5 s\n`;
    const updated = withTables(log, 'new tables');
    expect(updated).toBe(
      `# Log\n\nbefore\n\n${REGION_START}\n\nnew tables\n\n${REGION_END}\n\n## Notes\n\nafter 1.5 s\n`,
    );
    expect(committed().split(REGION_END)[1]).toBe(regeneratedLog(ROOT).split(REGION_END)[1]);
  });

  it('every figure of the generated tables is one a committed results file holds, as printed', () => {
    const log = committed();
    const region = log.slice(log.indexOf(REGION_START) + REGION_START.length, log.indexOf(REGION_END));
    expect(region).toContain('| training step, one thread |');
    expect(figuresNoResultHolds(region, [])).toEqual([]);
    expect(figuresNoResultHolds(`${region}\n| a figure made up | 4,321.5 ms | \`none\` |`, [])).toEqual([
      '4,321.5',
    ]);
  });

  it('every dated note below the tables names the commit that recorded it', () => {
    const notes = committed().split(REGION_END)[1]!;
    const items = notes
      .split('\n')
      .filter((line) => line.startsWith('| ') && !/^\| (choice|alternative|code|where) \|/.test(line))
      .concat(notes.split(/\n(?=- )/).filter((item) => item.startsWith('- ')));
    expect(items.length).toBeGreaterThan(40);
    const undated = items.filter((item) => !/\b[0-9a-f]{7}\b/.test(item));
    expect(undated).toEqual([]);
  });

  it('a figure a results file does not hold reads "not measured", never 0', () => {
    const read = (file: string) => {
      const json = results(file);
      if (file === 'bench.json') {
        delete json['figures']['train']['torch'];
        json['figures']['train']['trainStepMsTwoThreads'] = null;
      }
      if (file === 'canary.json') delete json['seconds'];
      return json;
    };
    const tables = measurementTables(read);
    expect(tables).not.toContain('Made ');
    expect(tables).toContain('| training step, two threads | not measured | `trainStepMsTwoThreads` |');
    expect(tables).toContain('| every policy under every harness | not measured | `seconds` |');
    expect(tables).not.toContain('figures.train.torch');
    expect(tables).not.toMatch(/\| 0 ms \| `trainStepMsTwoThreads`/);
  });

  it("dates a results file's tables by the date it records", () => {
    const read = (file: string) => ({ ...results(file), generatedAt: '2026-12-02T07:00:00.000Z' });
    expect(measurementTables(read)).toContain(
      'Made 2026-12-02T07:00:00.000Z.\nCommand: `tinyagent bench --torch --out results/bench.json`.',
    );
  });

  it('prints whole numbers grouped and others to three significant digits', () => {
    expect(logNumber(27_775)).toBe('27,775');
    expect(logNumber(280.64)).toBe('281');
    expect(logNumber(1.1022)).toBe('1.10');
    expect(logNumber(0.0437693)).toBe('0.0438');
    expect(logNumber(5)).toBe('5');
  });

  it('a missing or broken results file, or a log without its markers, is one line naming it, and nothing is written', () => {
    const missing = copyOfRepository();
    rmSync(join(missing, 'results', 'train.json'));
    expect(() => main({ root: missing })).toThrow(InputError);
    expect(() => main({ root: missing })).toThrow(/^results\/train\.json: cannot read it \(ENOENT\)$/);
    expect(readFileSync(join(missing, MEASUREMENT_LOG), 'utf8')).toBe(committed());

    const broken = copyOfRepository();
    writeFileSync(join(broken, 'results', 'bench.json'), '{"figures": ');
    expect(() => main({ root: broken })).toThrow(/^results\/bench\.json: not JSON/);

    const noRun = copyOfRepository({ file: 'train.json', change: (json) => delete json['run'] });
    expect(() => main({ root: noRun })).toThrow(/^results\/train\.json: no 'run' \(rerun its command\)$/);
    expect(readFileSync(join(noRun, MEASUREMENT_LOG), 'utf8')).toBe(committed());

    const unmarked = copyOfRepository();
    writeFileSync(join(unmarked, MEASUREMENT_LOG), '# Measurements\n\nno region here\n');
    expect(() => main({ root: unmarked })).toThrow(/^docs\/MEASUREMENTS\.md: no generated region/);
    expect(readFileSync(join(unmarked, MEASUREMENT_LOG), 'utf8')).toBe('# Measurements\n\nno region here\n');
  });
});
