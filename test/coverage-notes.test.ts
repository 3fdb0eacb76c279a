import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COVERAGE_FILE, coverageClause, coverageNote } from '../publish/coverageNotes.ts';
import { IQM_METHOD, TASK_BOOTSTRAP_METHOD, WILSON_METHOD } from '../analysis/index.ts';
import { methodLabel } from '../analysis/intervalMethods.ts';
import { METHODS } from '../analysis/coverageMethods.ts';

describe('coverage flagged where an interval is reported (publish/coverageNotes.ts)', () => {
  it("names each method's measured coverage in both worlds and flags those below 0.93, from results/coverage.json", () => {
    const note = coverageNote([WILSON_METHOD, IQM_METHOD]);
    expect(note).toMatch(
      /Wilson interval of a claim count over seeds 0\.\d{3} ± 0\.\d{3} observed, 0\.\d{3} ± 0\.\d{3} fitted at 16 seeds x 10 tasks x 64 episodes/,
    );
    expect(note).toMatch(/in the observed and a fitted world/);
  });

  it('every method the committed file holds is one of exp:coverage METHODS, and an unknown one is refused', () => {
    for (const entry of METHODS) expect(() => coverageNote([entry.id])).not.toThrow();
    expect(() => coverageNote(['no-such-method'])).toThrow(
      `${COVERAGE_FILE} has no coverage of 'no-such-method': rerun \`npm run exp:coverage\``,
    );
    const dir = mkdtempSync(join(tmpdir(), 'tinyagent-coverage-'));
    writeFileSync(join(dir, 'bad.json'), '{');
    expect(() => coverageNote(['x'], join(dir, 'bad.json'))).toThrow(/is not a coverage results file/);
    expect(coverageNote(['x'], join(dir, 'missing.json'))).toMatch(
      /not measured yet: run `npm run exp:coverage`/,
    );
  });

  it("a command's clause names the simulated design in both worlds, flags it, and says when the caller's design is not simulated", () => {
    const row = coverageClause(TASK_BOOTSTRAP_METHOD, '10 tasks x 32 episodes')!;
    expect(row.design).toBe('10 tasks x 32 episodes');
    expect(row.flagged).toBe(row.coverage < 0.93);
    expect(row.text).toMatch(
      /^simulated coverage 0\.\d{3} ± 0\.\d{3} observed, 0\.\d{3} ± 0\.\d{3} fitted at 10 tasks x 32 episodes/,
    );
    expect(row.text).not.toMatch(/is not simulated/);
    expect(coverageClause(TASK_BOOTSTRAP_METHOD, '5 tasks x 4 episodes')!.text).toMatch(
      /; 5 tasks x 4 episodes is not simulated \(results\/coverage\.md\)$/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'tinyagent-coverage-'));
    expect(coverageClause(TASK_BOOTSTRAP_METHOD, 'x', join(dir, 'missing.json'))).toBeUndefined();
  });

  it('every method id has a label, and an unknown id is refused', () => {
    for (const entry of METHODS) expect(methodLabel(entry.id)).not.toBe('');
    expect(() => methodLabel('nope')).toThrow(/no coverage method 'nope'/);
  });
});
