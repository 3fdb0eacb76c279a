import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint, initBackend, isFingerprint, type Fingerprint } from '../agent/index.ts';
import { writeResults } from '../publish/results.ts';
import { arithmeticDiffers, backendNotice, recordedFingerprint } from '../experiments/contract.ts';
import { compareWithCommitted, fingerprintHeadline, qualitativeChecks } from '../experiments/repro.ts';
import type { Numbers171, Numbers175, Numbers177, Numbers179 } from '../analysis/index.ts';
import { ROOT } from '../lib/paths.ts';
import {
  contractFiles,
  leavesOf,
  movedNumbers,
  movedTable,
  snapshotNumbers,
  studyCommands,
} from '../experiments/rebaseline.ts';
import { writeSection } from '../cli/measurementRecord.ts';

const WASM: Fingerprint = {
  version: '0.1.0',
  sources: 'a'.repeat(64),
  tfjs: '4.22.0',
  backend: 'wasm',
  backendVersion: '4.22.0',
  kernel: 'b'.repeat(64),
  threads: '1',
};
const NODE: Fingerprint = { ...WASM, backend: 'tensorflow', kernel: 'off', threads: 'default' };
const temp = () => mkdtempSync(join(tmpdir(), 'contract-'));

describe('the numbers as a contract (docs/CONTRACT.md)', () => {
  it('tells other arithmetic (tfjs, backend, its version, our kernel on or off) from other code on the same arithmetic', () => {
    expect(arithmeticDiffers(WASM, { ...WASM, sources: 'c'.repeat(64), kernel: 'c'.repeat(64) })).toBe(false);
    expect(arithmeticDiffers(WASM, { ...WASM, kernel: 'off' })).toBe(true);
    expect(
      arithmeticDiffers({ ...WASM, kernel: 'off' }, { ...WASM, kernel: 'off', sources: 'c'.repeat(64) }),
    ).toBe(false);
    expect(arithmeticDiffers(WASM, NODE)).toBe(true);
    expect(arithmeticDiffers(WASM, { ...WASM, backendVersion: '4.23.0' })).toBe(true);
    expect(arithmeticDiffers(WASM, { ...WASM, backend: 'wasm-no-simd' })).toBe(true);
    // A file made before any backend started (17.2, 17.3) used no tfjs arithmetic.
    expect(arithmeticDiffers({ ...WASM, backend: 'none', backendVersion: 'none' }, NODE)).toBe(false);
  });

  it('says in one line when the running backend is not the committed results', () => {
    expect(backendNotice(WASM, WASM)).toBeUndefined();
    expect(backendNotice(undefined, NODE)).toBeUndefined();
    expect(backendNotice(WASM, { ...WASM, sources: 'c'.repeat(64) })).toBeUndefined();
    const notice = backendNotice(WASM, NODE)!;
    expect(notice.split('\n')).toHaveLength(1);
    expect(notice).toMatch(/^notice: this process computes on tensorflow .*the committed results on wasm/);
    expect(notice).toContain('backend: wasm -> tensorflow');
    expect(notice).toContain("test:repro checks the chapter's qualitative claims instead");
  });

  it('compares fingerprints before numbers: exact on the same arithmetic, the claims on other arithmetic', () => {
    const committed = { fingerprint: WASM, numbers: { paired: { pairedSE: 0.01, unpairedSE: 0.02 } } };
    const moved = { paired: { pairedSE: 0.011, unpairedSE: 0.02 } };
    const same = compareWithCommitted('17.4', committed, { fingerprint: WASM, numbers: moved });
    expect(same).toEqual({ notes: [], exact: true, problems: ['paired.pairedSE: 0.01 != 0.011'] });
    const otherCode = compareWithCommitted('17.4', committed, {
      fingerprint: { ...WASM, sources: 'c'.repeat(64) },
      numbers: moved,
    });
    expect(otherCode.notes).toEqual([`fingerprint differs: sources: aaaaaaaaaaaa -> cccccccccccc`]);
    expect(otherCode.exact).toBe(true);
    expect(otherCode.problems).toHaveLength(1);
    const otherArithmetic = compareWithCommitted('17.4', committed, { fingerprint: NODE, numbers: moved });
    expect(otherArithmetic.exact).toBe(false);
    expect(otherArithmetic.problems).toEqual([]);
    const claimFails = compareWithCommitted('17.4', committed, {
      fingerprint: NODE,
      numbers: { paired: { pairedSE: 0.03, unpairedSE: 0.02 } },
    });
    expect(claimFails.problems).toEqual(['claim does not hold: pairing cuts the SE']);
    // A file made without tfjs (17.2, 17.3, exp:recipes run alone) is compared exactly, and only its code parts are named.
    const statistics = compareWithCommitted(
      '17.2',
      {
        fingerprint: { ...WASM, backend: 'none', backendVersion: 'none', kernel: 'off', threads: 'none' },
        numbers: 1,
      },
      { fingerprint: { ...WASM, sources: 'c'.repeat(64) }, numbers: 1 },
    );
    expect(statistics).toEqual({
      notes: ['fingerprint differs: sources: aaaaaaaaaaaa -> cccccccccccc'],
      exact: true,
      problems: [],
    });
    const unrecorded = compareWithCommitted(
      '17.4',
      { numbers: committed.numbers },
      { fingerprint: WASM, numbers: moved },
    );
    expect(unrecorded.notes[0]).toMatch(/records no fingerprint/);
  });

  it("reads each section's qualitative claims from its committed numbers: all hold there, each fails with its effect reversed", () => {
    const committed = (section: string): unknown =>
      (JSON.parse(readFileSync(join(ROOT, 'results', `${section}.json`), 'utf8')) as { numbers: unknown })
        .numbers;
    const failing = (section: string, numbers: unknown) =>
      qualitativeChecks(section, numbers)
        .filter(([, ok]) => !ok)
        .map(([claim]) => claim);
    for (const section of ['17.1', '17.4', '17.5', '17.7', '17.9']) {
      expect(qualitativeChecks(section, committed(section)).length).toBeGreaterThan(0);
      expect(failing(section, committed(section))).toEqual([]);
    }
    // 17.1's two agents swapped: the base agent now "passes more" and has the trained one's intervals.
    const [base, trained] = committed('17.1') as Numbers171;
    expect(failing('17.1', [trained, base])).toEqual([
      'step 80 passes more than step 0',
      "the trained agent's task-level interval is wider than its episode-level one",
    ]);
    const harness = committed('17.5') as Numbers175;
    const rows = harness.rows.map((row) => ({ ...row, move: -row.move }));
    expect(failing('17.5', { ...harness, rows })).toEqual([
      'temperature 1.3 costs the trained agent',
      '3 turns cost the trained agent',
    ]);
    const passAtK = committed('17.7') as Numbers177;
    const agents = passAtK.agents.map((agent) => ({
      ...agent,
      curve: [{ ...agent.curve[0]!, mean: -agent.step }],
    }));
    expect(failing('17.7', { ...passAtK, agents })).toEqual(['step 80 leads at k = 1']);
    const design = committed('17.9') as Numbers179;
    expect(
      failing('17.9', {
        ...design,
        gamer: { ...design.gamer, public: { ...design.gamer.public, success: 1 } },
      }),
    ).toEqual(['gamer rewarded 1 but never successful']);
    expect(qualitativeChecks('17.2', committed('17.2'))).toEqual([]);
  });

  it('heads test:repro with how the fingerprint differs', () => {
    expect(fingerprintHeadline(WASM, WASM)).toMatch(/the same as the committed results/);
    expect(fingerprintHeadline(WASM, { ...WASM, sources: 'c'.repeat(64) })).toMatch(
      /^fingerprint: other code than the committed results' \(sources: a+ -> c+\), the same arithmetic; every number must still match exactly$/,
    );
    expect(fingerprintHeadline(WASM, NODE)).toMatch(/other arithmetic .*qualitative claims/);
    expect(fingerprintHeadline(undefined, WASM)).toMatch(/records none/);
  });

  it('writes the fingerprint into every results file and every section of a shared one', async () => {
    await initBackend({ preference: 'wasm' });
    const dir = temp();
    writeResults(dir, {
      section: 'x',
      title: 't',
      seed: 1,
      smoke: true,
      config: {},
      numbers: { a: 1 },
      markdown: 'm',
    });
    expect(recordedFingerprint(join(dir, 'x.json'))).toEqual(fingerprint());
    const shared = join(dir, 'train.json');
    writeSection(shared, 'run', { seconds: 1 });
    writeSection(shared, 'seeds', { rows: [] });
    const sections = JSON.parse(readFileSync(shared, 'utf8'));
    expect(isFingerprint(sections.run.fingerprint) && isFingerprint(sections.seeds.fingerprint)).toBe(true);
    // A damaged file or one made before fingerprints records none.
    writeFileSync(join(dir, 'bad.json'), '{');
    expect(recordedFingerprint(join(dir, 'bad.json'))).toBeUndefined();
    expect(recordedFingerprint(join(dir, 'missing.json'))).toBeUndefined();
  });

  it('tables the numbers a rebaseline moved, leaving out when, where and by what a file was made', () => {
    const root = temp();
    mkdirSync(join(root, 'results', 'smoke'), { recursive: true });
    for (const study of ['s', 'group/t', 'no-plan'])
      mkdirSync(join(root, 'studies', study, 'results'), { recursive: true });
    const write = (path: string, value: unknown) => writeFileSync(join(root, path), JSON.stringify(value));
    write('results/a.json', { generatedAt: '1', fingerprint: WASM, numbers: { x: 1, y: [2, 3] } });
    write('results/smoke/a.json', { numbers: { x: 1 } });
    write('studies/s/results/study.json', { numbers: { mean: 0.5 } });
    write('studies/s/plan.jsonl', {});
    // A study in a group folder (studies/recipes-dev/NAME) counts; a folder without a plan does not.
    write('studies/group/t/results/study.json', { numbers: { mean: 0.6 } });
    write('studies/group/t/plan.jsonl', {});
    write('studies/no-plan/results/study.json', { numbers: { mean: 0.7 } });
    const files = contractFiles(root);
    expect(files.map((file) => file.slice(root.length + 1))).toEqual([
      'results/a.json',
      'results/smoke/a.json',
      'studies/group/t/results/study.json',
      'studies/s/results/study.json',
    ]);
    const before = snapshotNumbers(files, root);
    write('results/a.json', { generatedAt: '2', fingerprint: NODE, numbers: { x: 1, y: [2, 4], z: true } });
    const moved = movedNumbers(before, snapshotNumbers(files, root));
    expect(moved).toEqual([
      { file: 'results/a.json', path: 'numbers.y[1]', old: 3, new: 4 },
      { file: 'results/a.json', path: 'numbers.z', old: undefined, new: true },
    ]);
    expect(movedTable(moved).split('\n')).toEqual([
      '| file | number | old | new |',
      '| --- | --- | --- | --- |',
      '| results/a.json | numbers.y[1] | 3 | 4 |',
      '| results/a.json | numbers.z | (none) | true |',
    ]);
    expect(leavesOf('f', { generatedAt: 'x', n: null })).toEqual([{ file: 'f', path: 'n', value: null }]);
    write('results/a.json', 'not json');
    writeFileSync(join(root, 'results', 'a.json'), '{');
    expect(() => snapshotNumbers(files, root)).toThrow(/^results\/a\.json: not JSON/);
  });

  it('lists the commands that make the committed study files, and the files each writes (test:repro reruns them)', () => {
    const commands = studyCommands(ROOT);
    const report = commands.find(({ args }) => args.join(' ') === 'study report studies/default-16');
    expect(report?.writes).toEqual([
      'studies/default-16/results/figures/study-pass.svg',
      'studies/default-16/results/figures/study-pass.vl.json',
      'studies/default-16/results/study.json',
      'studies/default-16/results/study.md',
    ]);
    const mixed = commands.find(({ args }) => args[2] === 'studies/recipes-dev/default');
    expect(mixed?.args).toEqual(['study', 'report', 'studies/recipes-dev/default', '--allow-mixed']);
    const compare = commands.filter(({ args }) => args.includes('compare'));
    expect(compare.map(({ writes }) => writes)).toEqual([['results/study-compare-entropy.json']]);
    // Every committed study report is made by one command.
    const reports = contractFiles(ROOT).filter((file) => file.endsWith('study.json'));
    expect(commands.filter(({ args }) => args[1] === 'report')).toHaveLength(reports.length);
  });
});
