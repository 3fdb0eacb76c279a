import { describe, expect, it } from 'vitest';
import { NOT_MEASURED, QUOTED, SCANNED, WHOLE_DOCS } from './support/quoted-numbers.ts';
import {
  figuresNoResultHolds,
  folded,
  formatNumber,
  measuredText,
  readDoc,
  section,
  unbackedNumbers,
  valuesAt,
} from './support/numbers.ts';

// Every figure the README and docs quote is read from a committed results file
// (results/train.json, canary.json, bench.json, 17.N.json): the table beside this test says
// where, and a figure that differs from its file, or a new one in a scanned section that the
// table does not name, fails here.

describe('quoted figures equal their results files', () => {
  it.each(QUOTED.map((entry) => [`${entry.text} (${entry.file} ${entry.path})`, entry] as const))(
    '%s',
    (_name, entry) => {
      expect(measuredText(entry), `${entry.file} ${entry.path}`).toBe(entry.text);
      const quote = entry.quote ?? entry.text;
      expect(quote).toContain(entry.text);
      for (const doc of entry.docs) expect(folded(readDoc(doc)), doc).toContain(folded(quote));
    },
  );
});

describe('scanned sections quote no figure without a results file', () => {
  it.each(SCANNED.map((scan) => [`${scan.doc}: ${scan.heading}`, scan] as const))('%s', (_name, scan) => {
    const text = section(readDoc(scan.doc), scan.heading);
    const quotes = [
      ...QUOTED.filter((entry) => entry.docs.includes(scan.doc)).map((entry) => entry.quote ?? entry.text),
      ...(NOT_MEASURED[scan.doc] ?? []).map((setting) => setting.quote),
    ];
    expect(unbackedNumbers(text, quotes)).toEqual([]);
  });

  it('every setting listed as not measured is still in its doc (a stale entry would back a new figure)', () => {
    for (const [doc, settings] of Object.entries(NOT_MEASURED))
      for (const setting of settings) expect(folded(readDoc(doc)), doc).toContain(folded(setting.quote));
  });
});

describe('whole docs quote only figures a committed results file holds', () => {
  // REPRODUCTION.md and EXERCISES.md hold hundreds of figures, most in tables beside the book's;
  // each must be printed or held (rounded as the doc prints it) by a committed results file
  // (results/, studies/*/results/), or backed by a QUOTED or NOT_MEASURED phrase.
  it.each(WHOLE_DOCS.map((doc) => [doc]))('%s', (doc) => {
    const quotes = [
      ...QUOTED.filter((entry) => entry.docs.includes(doc)).map((entry) => entry.quote ?? entry.text),
      ...(NOT_MEASURED[doc] ?? []).map((setting) => setting.quote),
    ];
    expect(figuresNoResultHolds(readDoc(doc), quotes)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('a whole-doc figure no results file holds is found; rounded, grouped and e-notation forms are held', () => {
    // results/ex-3.json holds effectiveDraws 9468.61... and ex-6.json a covariance of 0.0000353...
    expect(figuresNoResultHolds('about 9,500 draws, Cov 3.53e-5, and 123456.789 nowhere', [])).toEqual([
      '123456.789',
    ]);
  });

  it('finds a figure no phrase backs, and ignores code spans and backed phrases', () => {
    const text =
      '- `npm run exp:17.4`: pass@1 of one run took 152 s\n  (spread 0.131); seeds 0.903 and\n  0.887';
    expect(unbackedNumbers(text, ['spread 0.131', '0.903'])).toEqual(['152', '0.887']);
    expect(unbackedNumbers(text, ['took 152 s', 'spread 0.131', '0.903', '0.887'])).toEqual([]);
  });

  it('formats as the docs print and resolves paths, wildcards included', () => {
    expect(formatNumber(35_912.4, { significant: 3, grouped: true })).toBe('35,900');
    expect(formatNumber(157_437, { grouped: true })).toBe('157,437');
    expect(formatNumber(0.8843, { digits: 3 })).toBe('0.884');
    const json = { rows: [{ a: 1 }, { a: 3 }], by: { x: 2, y: 5 } };
    expect(valuesAt(json, 'rows[*].a')).toEqual([1, 3]);
    expect(valuesAt(json, 'by[*]')).toEqual([2, 5]);
    expect(valuesAt(json, 'rows[1].a')).toEqual([3]);
    expect(
      valuesAt(
        {
          t: [
            { name: 'speed', n: 7 },
            { name: 'tail', n: 30 },
          ],
        },
        't[name!=speed].n',
      ),
    ).toEqual([30]);
    expect(() => valuesAt(json, 'rows[2].a')).toThrow(/no '2'/);
  });

  it('a figure that differs from its file fails', () => {
    const entry = QUOTED.find((candidate) => candidate.file === 'train.json')!;
    expect(measuredText(entry)).toBe(entry.text);
    expect(measuredText({ ...entry, format: { digits: 9 } })).not.toBe(entry.text);
  });
});
