import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIRECT_FACTORS, noneDrawn } from '../eval/noneDrawn.ts';
import { cli } from './support/cli.ts';

// Random malformed result files and random extreme counts, fed to every statistics command.
// Whatever the input: nothing prints a stack trace, every failure is one line with exit code 1
// (bad data) or 2 (bad flags), an answer never holds NaN, Infinity or a share outside [0, 1], and
// the work does not grow with the counts (pass@k's terms are counted; the files are at most 30
// rows and the bootstraps 200 replicates, and `npm run bench` times the statistics). The seeds
// are fixed so that a failure replays.

const folder = mkdtempSync(join(tmpdir(), 'eval-fuzz-'));
let files = 0;

// Identifier pools avoid the words the output checks look for (NaN, Infinity, undefined).
const taskValue = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('a', 'b', 'c', 'd', 'e', '7', 'task x') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(7, 7.5, '', ' ', null, true, {}, [], 1e21, -3, '"q"', 'a,b'),
  },
);
const indexValue = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 0, max: 6 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      -1,
      1.5,
      '0x1',
      '1e0',
      '1.0',
      2 ** 53,
      Number.MAX_SAFE_INTEGER,
      null,
      '',
      true,
      '01',
      ' 2 ',
    ),
  },
);
const passedValue = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom<unknown>(true, false, 0, 1, 'true', 'false', '1', '0', 'TRUE') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('yes', 2, null, '', -1, 0.5, [], {}) },
);
const row = fc.record(
  {
    task: taskValue,
    sample: indexValue,
    passed: passedValue,
    turn: fc.oneof(
      { weight: 10, arbitrary: fc.integer({ min: 0, max: 3 }) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(-1, '1.0', Number.MAX_SAFE_INTEGER, null) },
    ),
    run: fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom<unknown>('r1', 'r2') },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(3, null, {}) },
    ),
    envSeed: fc.oneof(fc.integer(), fc.constantFrom<unknown>('s1', null)),
  },
  { requiredKeys: ['task', 'sample', 'passed'] },
);
/** Mostly valid rows, with the optional fields (turn, run, env seed) present now and then. */
const roughRows = fc.array(row, { maxLength: 30 });
const header = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.record({
      harness: fc.dictionary(
        fc.constantFrom('temperature', 'top_p', 'model', 'seed'),
        fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('greedy', 'sampled')),
      ),
      provenance: fc.constant({ commit: 'abc' }),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>({ harness: 3 }, { harness: [] }, { harness: null }) },
);

/** Well-formed rows: tasks x samples with random outcomes, uneven on purpose. */
const cleanRows = fc
  .array(
    fc.tuple(
      fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((tasks) => {
    const seen = new Set<string>();
    return tasks
      .filter(([task]) => !seen.has(task) && seen.add(task))
      .flatMap(([task, outcomes]) =>
        outcomes.map((passed, sample) => ({ task, sample, passed, envSeed: sample })),
      );
  });

/** CSV columns in random order: the three required ones (now and then one is missing) and some optional ones. */
const csvColumns = fc
  .tuple(
    fc.shuffledSubarray(['turn', 'run', 'envSeed']),
    fc.oneof(
      { weight: 12, arbitrary: fc.constant(-1) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }) },
    ),
    fc.integer({ min: 0, max: 99 }),
  )
  .map(([optional, drop, rotate]) => {
    const columns = [...['task', 'sample', 'passed'].filter((_, i) => i !== drop), ...optional];
    const start = rotate % columns.length;
    return [...columns.slice(start), ...columns.slice(0, start)];
  });
const csvCell = (value: unknown) =>
  value === undefined ? '' : typeof value === 'string' ? value : (JSON.stringify(value) ?? '');

/** A file's text: JSONL or CSV, with random damage (BOM, CRLF, a cut line, garbage, duplicated columns). */
const fileText = fc
  .record({
    head: header,
    rows: fc.oneof(
      { weight: 2, arbitrary: cleanRows as fc.Arbitrary<unknown[]> },
      { weight: 1, arbitrary: roughRows as fc.Arbitrary<unknown[]> },
    ),
    format: fc.constantFrom('jsonl', 'csv'),
    bom: fc.boolean(),
    crlf: fc.boolean(),
    damage: fc.oneof(
      { weight: 12, arbitrary: fc.constant('none') },
      { weight: 1, arbitrary: fc.constantFrom('cut', 'garbage', 'empty', 'duplicate-column', 'binary') },
    ),
    columns: csvColumns,
  })
  .map(({ head, rows, format, bom, crlf, damage, columns }) => {
    let lines: string[];
    if (format === 'jsonl')
      lines = [
        ...(head === undefined ? [] : [JSON.stringify(head)]),
        ...rows.map((record) => JSON.stringify(record)),
      ];
    else {
      const names = damage === 'duplicate-column' ? [...columns, columns[0] as string] : columns;
      lines = [
        names.join(','),
        ...rows.map((record) =>
          names.map((name) => csvCell((record as Record<string, unknown>)[name])).join(','),
        ),
      ];
    }
    if (damage === 'cut' && lines.length > 0)
      lines[lines.length - 1] = (lines[lines.length - 1] as string).slice(
        0,
        Math.floor((lines[lines.length - 1] as string).length / 2),
      );
    if (damage === 'garbage') lines.splice(Math.floor(lines.length / 2), 0, '}{,,"\u0007');
    if (damage === 'empty') lines = [];
    let text = lines.join(crlf ? '\r\n' : '\n');
    if (damage === 'binary') text = `\u0000\u00ff\ufffd${text}`;
    return { text: `${bom ? '\uFEFF' : ''}${text}`, extension: format };
  });

function writeFile({ text, extension }: { text: string; extension: string }): string {
  const path = join(folder, `f${files++}.${extension}`);
  writeFileSync(path, text);
  return path;
}

/** Count-like flag values: ordinary, huge, not integers, not numbers. */
const countString = fc.oneof(
  fc.integer({ min: 0, max: 50 }).map(String),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map(String),
  fc.double({ noDefaultInfinity: false }).map(String),
  fc.constantFrom(
    '1e21',
    '9007199254740992',
    '9007199254740991',
    '4503599627370496',
    '1e12',
    '5e11',
    '2e15',
    '0x10',
    '',
    ' ',
    '-1',
    '1.5',
    '1e3',
    'abc',
    '-0',
    'NaN',
    'Infinity',
  ),
);
const smallK = fc.integer({ min: 1, max: 14 }).map(String);
const kList = fc.oneof(
  { weight: 6, arbitrary: fc.array(smallK, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(',')) },
  {
    weight: 1,
    arbitrary: fc.array(countString, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(',')),
  },
);
/** n, c <= n and k <= n as strings, from 1 up to 2^53 - 1. */
const validCounts = fc
  .oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }))
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.oneof(fc.integer({ min: 0, max: Math.min(n, 5) }), fc.integer({ min: 0, max: n }), fc.constant(n)),
      // distinct: a list that names a value twice is refused
      fc.uniqueArray(fc.oneof(fc.integer({ min: 1, max: Math.min(n, 5) }), fc.integer({ min: 1, max: n })), {
        minLength: 1,
        maxLength: 3,
      }),
    ),
  )
  .map(([n, c, ks]) => [String(n), String(c), ks.join(',')] as [string, string, string]);
const anyCounts = fc.oneof(
  { weight: 3, arbitrary: validCounts },
  { weight: 1, arbitrary: fc.tuple(countString, countString, kList) },
);

const realString = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }).map(String),
  fc.double().map(String),
  fc.constantFrom('0', '1', '0.5', '0.8', '0.025', '1e-300', '1e300', '-0', 'NaN', '', '5e-324'),
);

const shareString = fc.oneof(
  { weight: 3, arbitrary: fc.double({ min: 0.001, max: 0.999, noNaN: true }).map(String) },
  { weight: 1, arbitrary: realString },
);
const positiveString = fc.oneof(
  { weight: 3, arbitrary: fc.double({ min: 1e-6, max: 10, noNaN: true }).map(String) },
  { weight: 1, arbitrary: realString },
);

const NULLABLE = new Set([
  'supported',
  'ok',
  'low',
  'high',
  'clusteredSE',
  'episodeSE',
  'pairedSE',
  'unpairedSE',
  'correlation',
  'intraclassCorrelation',
  'chapterIntraclassCorrelation',
  'designEffect',
  'harness',
  'step',
  'sameCheckpoint',
]);
const SHARES = new Set([
  'estimate',
  'low',
  'high',
  'a',
  'b',
  'passAt1',
  'passAtK',
  'wholeConversation',
  'finalAnswer',
  'accuracyAmongStillGoing',
  'accuracyOverAll',
]);
const SHARE_MAPS = new Set(['plugInPassAtK', 'pooledPlugInPassAtK', 'succeededByTurn']);
const SKIP = new Set([
  'harness',
  'header',
  'files',
  'file',
  'evidence',
  'notes',
  'warnings',
  'sources',
  'differing',
  'harnessDifferences',
]);

/** Walks a JSON answer: nulls only where a number may not exist, shares in [0, 1] (differences in [-1, 1]). */
function checkJson(value: unknown, path: string[], problems: string[]): void {
  const key = path[path.length - 1] ?? '';
  const parent = path[path.length - 2] ?? '';
  if (value === null) {
    // compare's tasksNeeded says why its number does not exist (one task, no difference, no spread)
    if (!NULLABLE.has(key) && !/^\d+$/.test(key) && parent !== 'tasksNeeded')
      problems.push(`${path.join('.')} is null`);
  } else if (typeof value === 'number') {
    const bound = path.includes('difference') ? -1 : 0;
    const isShare = SHARES.has(key) || SHARE_MAPS.has(parent) || (/^\d+$/.test(key) && path.length === 1);
    if (isShare && !(value >= bound && value <= 1))
      problems.push(`${path.join('.')} = ${value} outside [${bound}, 1]`);
    if (/SE$/.test(key) && !(value >= 0)) problems.push(`${path.join('.')} = ${value} < 0`);
  } else if (Array.isArray(value))
    value.forEach((item, i) => checkJson(item, [...path, String(i)], problems));
  else if (typeof value === 'object') {
    for (const [name, inner] of Object.entries(value as Record<string, unknown>))
      if (!SKIP.has(name)) checkJson(inner, [...path, name], problems);
  }
}

/** Runs one command line and checks the invariants above; returns the exit code and stderr. */
async function runChecked(argv: string[]): Promise<{ code: number; stderr: string }> {
  const { code, stdout, stderr } = await cli(argv);
  const where = `tinyagent ${argv.join(' ')}`;
  expect([0, 1, 2], where).toContain(code);
  expect(`${stdout}${stderr}`, where).not.toMatch(/\n\s+at .*:\d+/);
  if (stderr !== '') expect(stderr.trimEnd().split('\n'), where).toHaveLength(1);
  if (code === 2) expect(stderr, where).not.toBe('');
  if (stdout !== '') {
    expect(stdout, where).not.toMatch(/\bNaN\b|Infinity|undefined|\[object Object\]/);
    if (argv.includes('--json')) {
      const problems: string[] = [];
      checkJson(JSON.parse(stdout), [], problems);
      expect(problems, where).toEqual([]);
    }
  }
  if (code === 0 && !argv.includes('--help')) expect(stdout, where).not.toBe('');
  return { code, stderr };
}

const RUNS = 200;
const options = (seed: number) => ({ seed, numRuns: RUNS, endOnFailure: true });

describe('fuzz: random malformed result files', () => {
  it('metrics', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileText,
        fc.option(kList, { nil: undefined }),
        fc.boolean(),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('r1', 'r2', '') },
        ),
        async (file, k, json, run) => {
          const argv = [
            'metrics',
            writeFile(file),
            '--reps',
            '200',
            ...(k === undefined ? [] : ['--k', k]),
            ...(run === undefined ? [] : ['--run', run]),
            ...(json ? ['--json'] : []),
          ];
          await runChecked(argv);
        },
      ),
      options(11),
    );
  });

  it('compare', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileText,
        fileText,
        fc.option(fc.oneof({ weight: 4, arbitrary: smallK }, { weight: 1, arbitrary: countString }), {
          nil: undefined,
        }),
        fc.boolean(),
        async (a, b, k, json) => {
          await runChecked([
            'compare',
            writeFile(a),
            writeFile(b),
            '--reps',
            '200',
            ...(k === undefined ? [] : ['--k', k]),
            ...(json ? ['--json'] : []),
          ]);
        },
      ),
      options(12),
    );
  });

  it('diagnose', async () => {
    const reported = fc
      .oneof(
        {
          weight: 4,
          arbitrary: fc.array(fc.tuple(smallK, fc.double({ min: 0, max: 1, noNaN: true })), {
            minLength: 1,
            maxLength: 3,
          }),
        },
        { weight: 1, arbitrary: fc.array(fc.tuple(countString, realString), { minLength: 1, maxLength: 3 }) },
      )
      .map((pairs) => pairs.map(([k, value]) => `${k}:${value}`).join(','));
    const k = fc.oneof({ weight: 4, arbitrary: smallK }, { weight: 1, arbitrary: countString });
    await fc.assert(
      fc.asyncProperty(
        fileText,
        fc.option(fileText, { nil: undefined }),
        fc.option(k, { nil: undefined }),
        fc.option(reported, { nil: undefined }),
        fc.boolean(),
        async (a, b, chosenK, claim, json) => {
          const argv = [
            'diagnose',
            writeFile(a),
            ...(b === undefined ? [] : [writeFile(b)]),
            ...(chosenK === undefined ? [] : ['--k', chosenK]),
            ...(claim === undefined ? [] : ['--reported', claim]),
            ...(json ? ['--json'] : []),
          ];
          await runChecked(argv);
        },
      ),
      options(13),
    );
  });
});

describe('fuzz: random extreme counts', () => {
  it('passk: valid counts up to 2^53 - 1 always answer, with bounded work; anything else is a usage error', async () => {
    await fc.assert(
      fc.asyncProperty(validCounts, fc.boolean(), async ([n, c, k], json) => {
        expect(
          await runChecked([
            'passk',
            '--samples',
            n,
            '--successes',
            c,
            '--k',
            k,
            ...(json ? ['--json'] : []),
          ]).then(({ code }) => code),
          `passk --samples ${n} --successes ${c} --k ${k}`,
        ).toBe(0);
        // What the command computes for each k: pass@k (c marked) and pass^k (n - c marked).
        for (const each of k.split(',').map(Number)) {
          for (const marked of [Number(c), Number(n) - Number(c)])
            expect(
              noneDrawn(Number(n), marked, each).terms,
              `passk --samples ${n} --successes ${c} --k ${each}`,
            ).toBeLessThanOrEqual(DIRECT_FACTORS);
        }
      }),
      options(21),
    );
    await fc.assert(
      fc.asyncProperty(countString, countString, kList, async (n, c, k) => {
        const { code } = await runChecked(['passk', '--samples', n, '--successes', c, '--k', k]);
        expect(code, `passk --samples ${n} --successes ${c} --k ${k}`).not.toBe(1);
      }),
      options(24),
    );
  });

  it('interval', async () => {
    const method = fc.constantFrom('wilson', 'wald', 'clopper-pearson', 'jeffreys', 'agresti-coull', 'exact');
    await fc.assert(
      fc.asyncProperty(
        anyCounts,
        method,
        fc.option(realString, { nil: undefined }),
        fc.boolean(),
        async ([trials, successes], chosen, level, json) => {
          await runChecked([
            'interval',
            '--successes',
            successes,
            '--samples',
            trials,
            '--method',
            chosen,
            ...(level === undefined ? [] : ['--level', level]),
            ...(json ? ['--json'] : []),
          ]);
        },
      ),
      options(22),
    );
  });

  it('power', async () => {
    const design = fc.constantFrom('paired', 'unpaired', 'seeds', 'crossed');
    await fc.assert(
      fc.asyncProperty(
        positiveString,
        positiveString,
        fc.option(shareString, { nil: undefined }),
        fc.option(shareString, { nil: undefined }),
        design,
        fc.boolean(),
        async (sd, delta, alpha, power, chosen, json) => {
          const argv = [
            'power',
            '--sd',
            sd,
            '--delta',
            delta,
            '--design',
            chosen,
            ...(alpha === undefined ? [] : ['--alpha', alpha]),
            ...(power === undefined ? [] : ['--power', power]),
            ...(json ? ['--json'] : []),
          ];
          const { code, stderr } = await runChecked(argv);
          // Every input is a flag: a bad one is exit 2; exit 1 only for an N above 2^53 - 1.
          if (code === 1) expect(stderr, argv.join(' ')).toMatch(/exceeds 2\^53 - 1/);
        },
      ),
      options(23),
    );
  });
});
