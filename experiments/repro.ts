/**
 * Regression test of the reported numbers: every experiment rerun as its script runs it must
 * reproduce the committed results/17.N.json exactly (on the backend that wrote them), and the
 * smoke runs must reproduce results/smoke/ exactly (the test suite checks those).
 *
 * Command: npm run test:repro            (full: reruns every experiment on the committed runs,
 *                                         training them first where missing, as `npm run
 *                                         exp:all` does; its --help says what takes the time)
 *          npm run test:repro -- --update-smoke   (rewrites results/smoke/ after a change that
 *                                         moves the smoke numbers, to be committed with it)
 *          npm run test:repro -- --rebaseline     (regenerates every committed number: runs trained
 *                                         by other code, results/, results/smoke/, the study
 *                                         reports and comparisons; prints old -> new of each
 *                                         number that moved; docs/CONTRACT.md)
 * Output: the fingerprint line (how this code and arithmetic differ from the committed results'),
 *   one line per experiment, one (`studies`) for the study reports and comparison files made
 *   again from the committed job outputs, and `repro: N passed, M failed` (exit 1 when any failed); writes
 *   nothing but results/smoke/ under --update-smoke.
 * Fingerprints are compared first (docs/CONTRACT.md): on other arithmetic (another backend, tfjs
 * or backend version) the exact numbers cannot match, and the chapter's qualitative claims are
 * checked instead (`qualitativeChecks`); on the same arithmetic by other code every number must
 * still match.
 * On the same backend every file an experiment writes must also be byte-identical to the committed
 * one, the machine's part aside (`fileDifferences`): its JSON, its Markdown, each figure's SVG and
 * vega-lite spec (results/figures/NAME.vl.json, the report page's data).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import {
  fingerprint,
  fingerprintDifferences,
  initBackend,
  recordedBackend,
  type Fingerprint,
} from '../agent/index.ts';
import { arithmeticDiffers, committedFingerprint, fingerprintOf, sayBackendNotice } from './contract.ts';
import { main as main171 } from './17.1.ts';
import { main as main172 } from './17.2.ts';
import { main as main173 } from './17.3.ts';
import { main as main174 } from './17.4.ts';
import { main as main175 } from './17.5.ts';
import { main as main176 } from './17.6.ts';
import { main as main177 } from './17.7.ts';
import { main as main178 } from './17.8.ts';
import { main as main179 } from './17.9.ts';
import { main as mainEx1 } from './ex-1.ts';
import { main as mainEx2 } from './ex-2.ts';
import { main as mainEx3 } from './ex-3.ts';
import { main as mainEx4 } from './ex-4.ts';
import { main as mainEx5 } from './ex-5.ts';
import { main as mainEx6 } from './ex-6.ts';
import { main as mainEx7 } from './ex-7.ts';
import { main as mainSeeds } from './seeds.ts';
import { main as mainCoverage } from './coverage.ts';
import { main as mainRecipes } from './recipes.ts';
import { main as mainRecipeClaims } from './recipe-claims.ts';
import { main as mainDesign } from './design.ts';
import type { Numbers171, Numbers174, Numbers175, Numbers177, Numbers179 } from '../analysis/index.ts';
import { writeFilesAtomic } from '../lib/atomic.ts';
import { UsageError } from '../lib/errors.ts';
import { figureSpecName, resultPairMatches } from '../publish/results.ts';
import { isMain, parseScriptFlags, runScript } from '../lib/script.ts';
import { ROOT } from '../lib/paths.ts';
import { setRetrainOtherCode, type ExperimentOptions } from './runs.ts';
import {
  contractFiles,
  filesUnder,
  movedNumbers,
  movedTable,
  NOT_NUMBERS,
  regenerateStudyFiles,
  snapshotNumbers,
  studyFileDifferences,
  type Moved,
} from './rebaseline.ts';

/**
 * The coverage of the reported intervals first, since five sections quote it (`resultsToQuote`);
 * then every chapter-17 experiment in the chapter's order, the chapter's seven exercises (ex-7
 * quotes 17.4) and the scripts on the committed studies (`npm run exp:all` runs them so too).
 * Without a seed each uses its own default, the one its script uses and its committed results
 * record.
 */
export const EXPERIMENTS: Record<string, (options: ExperimentOptions) => Promise<unknown>> = {
  coverage: mainCoverage,
  '17.1': main171,
  '17.2': main172,
  '17.3': main173,
  '17.4': main174,
  '17.5': main175,
  '17.6': main176,
  '17.7': main177,
  '17.8': main178,
  '17.9': main179,
  'ex-1': mainEx1,
  'ex-2': mainEx2,
  'ex-3': mainEx3,
  'ex-4': mainEx4,
  'ex-5': mainEx5,
  'ex-6': mainEx6,
  'ex-7': mainEx7,
  seeds: mainSeeds,
  recipes: mainRecipes,
  'recipe-claims': mainRecipeClaims,
  design: mainDesign,
};

/**
 * Runs sections of EXPERIMENTS one after another into `outDir` as one batch (exp:all, test:repro,
 * the rebaseline): a section that quotes another reads the file this batch wrote once the batch
 * has run that section (`resultsToQuote`). With `quote: false` (a smoke batch, whose own files
 * are smoke-sized) every section quotes the committed files.
 */
export function experimentBatch(outDir: string, { quote = true }: { quote?: boolean } = {}) {
  const sections: string[] = [];
  return async (section: string, options: Omit<ExperimentOptions, 'outDir' | 'batch'>): Promise<void> => {
    const batch = quote ? { batch: { dir: outDir, sections: [...sections] } } : {};
    await EXPERIMENTS[section]!({ ...options, outDir, ...batch });
    sections.push(section);
  };
}

/** The paths (a.b[3].c) where two JSON values differ; numbers must be equal exactly. */
export function differences(expected: unknown, actual: unknown, path = ''): string[] {
  const mismatch = () => [`${path || '(root)'}: ${JSON.stringify(expected)} != ${JSON.stringify(actual)}`];
  if (
    typeof expected !== typeof actual ||
    Array.isArray(expected) !== Array.isArray(actual) ||
    (expected === null) !== (actual === null)
  )
    return mismatch();
  if (typeof expected !== 'object' || expected === null) return Object.is(expected, actual) ? [] : mismatch();
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual as object)]);
  return [...keys].flatMap((key) =>
    differences(
      (expected as Record<string, unknown>)[key],
      (actual as Record<string, unknown>)[key],
      Array.isArray(expected) ? `${path}[${key}]` : path ? `${path}.${key}` : key,
    ),
  );
}

/** A results file's numbers, with a temporary runs folder written as `<runs>` so that smoke runs in different folders compare. */
function normalisedNumbers(path: string, runsDir?: string): unknown {
  const text = readFileSync(path, 'utf8');
  return (
    JSON.parse(runsDir === undefined ? text : text.split(runsDir).join('<runs>')) as { numbers: unknown }
  ).numbers;
}

/** What results/smoke/ holds for a smoke run: the chapter sections that play a trained run and the seven exercises, in the order its expectations are made (and the test suite runs them). */
const SMOKE_ORDER = '17.1 17.4 17.5 17.6 17.7 17.8 17.9 ex-1 ex-2 ex-3 ex-4 ex-5 ex-6 ex-7'.split(' ');
export const SMOKE_SEED = 1;

/** Rewrites results/smoke/: every smoke experiment on a fresh smoke run in a temporary folder, paths written as `<runs>`. */
async function updateSmoke(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'tinyagent-smoke-'));
  const runsDir = join(root, 'runs');
  const outDir = join(root, 'results');
  try {
    const writes = [];
    for (const section of SMOKE_ORDER) {
      await EXPERIMENTS[section]!({
        run: join(runsDir, 'default-smoke'),
        seed: SMOKE_SEED,
        smoke: true,
        outDir,
      });
      const record = {
        section,
        seed: SMOKE_SEED,
        fingerprint: fingerprint(),
        numbers: normalisedNumbers(join(outDir, `${section}.json`), runsDir),
      };
      writes.push({
        path: join(ROOT, 'results', 'smoke', `${section}.json`),
        content: `${JSON.stringify(record, null, 2)}\n`,
      });
    }
    // All or nothing: a failed experiment leaves results/smoke/ as it was.
    writeFilesAtomic(writes);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Qualitative claims that hold on any backend (the direction of each effect), read from a results
 * file's `numbers` as the section's analysis (analysis/sections/) made them.
 */
export function qualitativeChecks(section: string, numbers: unknown): Array<[string, boolean]> {
  switch (section) {
    case '17.1': {
      const [base, trained] = numbers as Numbers171;
      return [
        ['step 80 passes more than step 0', trained!.passAt1 > base!.passAt1],
        [
          "the trained agent's task-level interval is wider than its episode-level one",
          trained!.clusters.taskLevel.width > trained!.clusters.episodeLevel.width,
        ],
      ];
    }
    case '17.4': {
      const { paired } = numbers as Numbers174;
      return [['pairing cuts the SE', paired.pairedSE < paired.unpairedSE]];
    }
    case '17.5': {
      const { rows } = numbers as Numbers175;
      const trainedMove = (harness: string) =>
        rows.find((row) => row.step === 80 && row.harness === harness)!.move;
      return [
        ['temperature 1.3 costs the trained agent', trainedMove('temperature 1.3') < 0],
        ['3 turns cost the trained agent', trainedMove('3 turns') < 0],
      ];
    }
    case '17.7': {
      const { agents } = numbers as Numbers177;
      const atK1 = (step: number) => agents.find((agent) => agent.step === step)!.curve[0]!.mean;
      return [['step 80 leads at k = 1', atK1(80) > atK1(0)]];
    }
    case '17.9': {
      const { stacker, gamer } = numbers as Numbers179;
      return [
        ['stacker 0.2 vs 0.6', stacker.train.success === 0.2 && stacker.plain.success === 0.6],
        [
          'gamer rewarded 1 but never successful',
          gamer.public.meanReward === 1 && gamer.public.success === 0,
        ],
      ];
    }
    default:
      return [];
  }
}

/** A written file's text with the machine's part taken out: a JSON's environment fields, the Markdown's node version. */
function withoutEnvironment(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.md')) return text.replace(/; node v[\d.]+;/, ';');
  if (!path.endsWith('.json') || path.endsWith('.vl.json')) return text;
  const record = JSON.parse(text) as Record<string, unknown>;
  for (const field of NOT_NUMBERS) delete record[field];
  return JSON.stringify(record);
}

/**
 * The committed files of `section` that a fresh run (in `outDir`) did not rewrite byte for byte,
 * the environment aside (`withoutEnvironment`): its JSON, its Markdown and every figure the JSON
 * lists, SVG and vega-lite spec. A script must rewrite what is committed, not only its numbers.
 */
export function fileDifferences(
  section: string,
  { expectedDir, outDir }: { expectedDir: string; outDir: string },
): string[] {
  const fresh = readRecord(join(outDir, `${section}.json`));
  const files = [
    `${section}.json`,
    `${section}.md`,
    ...(fresh.figures ?? []).flatMap((figure) => [
      figure,
      join(dirname(figure), figureSpecName(basename(figure))),
    ]),
  ];
  return files.flatMap((file) => {
    const committed = join(expectedDir, file);
    if (!existsSync(committed)) return [`${file} is missing: rerun the section`];
    return withoutEnvironment(committed) === withoutEnvironment(join(outDir, file))
      ? []
      : [`${file} differs from the rerun's: rerun the section`];
  });
}

export interface ResultsRecord {
  numbers: unknown;
  fingerprint?: unknown;
}

function readRecord(path: string): ResultsRecord & { seed?: number; figures?: string[] } {
  return JSON.parse(readFileSync(path, 'utf8')) as ResultsRecord;
}

/**
 * Compares a fresh results file with its committed one, fingerprints first (docs/CONTRACT.md):
 * `notes` name the fingerprint parts that differ; when the arithmetic is the same (tfjs, backend
 * and its version: `arithmeticDiffers`) every number must be equal exactly, else only the chapter's
 * qualitative claims are checked (`qualitativeChecks`). A committed file with no fingerprint
 * (written before fingerprints) is judged by the backend its numbers name, as before.
 */
export function compareWithCommitted(
  section: string,
  committed: ResultsRecord,
  fresh: ResultsRecord,
): { notes: string[]; exact: boolean; problems: string[] } {
  const committedPrint = fingerprintOf(committed);
  const freshPrint = fingerprintOf(fresh) ?? fingerprint();
  let exact: boolean;
  const notes: string[] = [];
  if (committedPrint === undefined) {
    notes.push('the committed file records no fingerprint (test:repro -- --rebaseline records one)');
    const backendOfFile = JSON.stringify(committed.numbers).match(/"backend":"?([a-z-]+)/)?.[1];
    exact = backendOfFile === undefined || backendOfFile === recordedBackend();
  } else {
    // A side made without tfjs (backend none) differs from the other in the backend's parts by
    // construction, not in anything that made its numbers: only the code parts are named then.
    const withoutTfjs = committedPrint.backend === 'none' || freshPrint.backend === 'none';
    const differs = fingerprintDifferences(committedPrint, freshPrint).filter(
      (line) => !withoutTfjs || /^(version|sources):/.test(line),
    );
    if (differs.length > 0) notes.push(`fingerprint differs: ${differs.join(', ')}`);
    exact = !arithmeticDiffers(committedPrint, freshPrint);
  }
  const problems = exact
    ? differences(committed.numbers, fresh.numbers)
    : qualitativeChecks(section, fresh.numbers)
        .filter(([, ok]) => !ok)
        .map(([claim]) => `claim does not hold: ${claim}`);
  return { notes, exact, problems };
}

/** What a smoke rerun of `section` (written to `outDir`, its runs under `runsDir`) differs in from results/smoke/, fingerprint notes first when a number moved. */
export function smokeProblems(section: string, outDir: string, runsDir: string): string[] {
  const committed = readRecord(join(ROOT, 'results', 'smoke', `${section}.json`));
  const freshPath = join(outDir, `${section}.json`);
  const fresh = readRecord(freshPath);
  const problems = differences(committed.numbers, normalisedNumbers(freshPath, runsDir));
  if (problems.length === 0) return [];
  const differs = fingerprintDifferences(fingerprintOf(committed), fingerprintOf(fresh));
  return [...(differs.length > 0 ? [`fingerprint differs: ${differs.join(', ')}`] : []), ...problems];
}

/** The line test:repro prints before it compares anything: how this process's fingerprint differs from the committed results'. */
export function fingerprintHeadline(
  committed: Fingerprint | undefined,
  fresh: Fingerprint = fingerprint(),
): string {
  if (committed === undefined)
    return 'fingerprint: results/17.1.json records none (made before fingerprints); comparing numbers by the backend they name';
  const differs = fingerprintDifferences(committed, fresh);
  if (differs.length === 0)
    return "fingerprint: the same as the committed results'; every number must match exactly";
  return arithmeticDiffers(committed, fresh)
    ? `fingerprint: other arithmetic than the committed results' (${differs.join(', ')}); checking the chapter's qualitative claims, not exact numbers`
    : `fingerprint: other code than the committed results' (${differs.join(', ')}), the same arithmetic; every number must still match exactly`;
}

/**
 * Reruns every experiment at full size as its script runs it (its own default seed) into a
 * temporary folder and compares with `expectedDir` (the smoke runs are compared by the test suite).
 */
export async function reproduce({
  expectedDir,
  run,
}: {
  expectedDir: string;
  run: string;
}): Promise<Array<{ section: string; notes: string[]; problems: string[] }>> {
  const outDir = mkdtempSync(join(tmpdir(), 'tinyagent-repro-'));
  try {
    await initBackend();
    sayBackendNotice(expectedDir);
    process.stdout.write(`${fingerprintHeadline(committedFingerprint(expectedDir))}\n`);
    const report = [];
    const runSection = experimentBatch(outDir);
    for (const section of Object.keys(EXPERIMENTS)) {
      const expectedPath = join(expectedDir, `${section}.json`);
      if (!existsSync(expectedPath)) {
        report.push({ section, notes: [], problems: [`${expectedPath} is missing`] });
        continue;
      }
      const expected = readRecord(expectedPath);
      // As its script runs it (no --seed): a committed file must be what the script writes.
      await runSection(section, { run, smoke: false });
      const fresh = readRecord(join(outDir, `${section}.json`));
      const { notes, exact, problems } = compareWithCommitted(section, expected, fresh);
      if (fresh.seed !== expected.seed)
        problems.unshift(
          `the script draws with seed ${fresh.seed}, the committed file records seed ${expected.seed}`,
        );
      // Numbers that match in files that do not (a config, a sentence, a figure) are a stale file.
      if (exact && problems.length === 0) problems.push(...fileDifferences(section, { expectedDir, outDir }));
      if (resultPairMatches(expectedPath, join(expectedDir, `${section}.md`)) === false)
        problems.push(
          `${section}.md was not written with ${section}.json (a run was killed between the two): rerun it`,
        );
      report.push({ section, notes, problems });
    }
    // The study reports and comparisons are statistics of committed job outputs: exact on any backend.
    report.push({
      section: 'studies',
      notes: [],
      problems: await studyFileDifferences((a, b) => withoutEnvironment(a) === withoutEnvironment(b)),
    });
    return report;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * `test:repro -- --rebaseline`: regenerates every committed number in one command. Runs trained
 * by other code (their manifests' fingerprints differ) are trained again; every experiment reruns
 * as its script runs it (its own default seed) into a temporary folder, and its files replace results/ in one atomic batch
 * once all succeeded; then results/smoke/, every study report and comparison (through the CLI).
 * Returns the numbers that moved, old -> new.
 */
export async function rebaseline({ run = 'runs/default' }: { run?: string } = {}): Promise<{
  moved: Moved[];
  files: number;
  commands: string[];
}> {
  const resultsDir = join(ROOT, 'results');
  const before = snapshotNumbers(contractFiles());
  setRetrainOtherCode(true);
  await initBackend();
  sayBackendNotice(resultsDir);
  const outDir = mkdtempSync(join(tmpdir(), 'tinyagent-rebaseline-'));
  try {
    const runSection = experimentBatch(outDir);
    for (const section of Object.keys(EXPERIMENTS)) {
      process.stderr.write(`rebaseline: ${section}\n`);
      // Each at its script's own seed, so that the script alone rewrites what is committed.
      await runSection(section, { run, smoke: false });
    }
    writeFilesAtomic(
      filesUnder(outDir).map((path) => ({
        path: join(resultsDir, relative(outDir, path)),
        content: readFileSync(path),
      })),
    );
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  process.stderr.write('rebaseline: results/smoke/\n');
  await updateSmoke();
  process.stderr.write('rebaseline: study reports and comparisons\n');
  const commands = await regenerateStudyFiles();
  const files = contractFiles();
  return { moved: movedNumbers(before, snapshotNumbers(files)), files: files.length, commands };
}

if (isMain(import.meta.url)) {
  await runScript('test:repro', async () => {
    const values = parseScriptFlags(
      process.argv.slice(2),
      { 'update-smoke': { type: 'boolean' }, rebaseline: { type: 'boolean' } },
      '--update-smoke, --rebaseline',
    );
    const updateSmokeFlag = values['update-smoke'] === true;
    const rebaselineFlag = values.rebaseline === true;
    if (updateSmokeFlag && rebaselineFlag)
      throw new UsageError(
        '--rebaseline rewrites results/smoke/ too: give one of --update-smoke, --rebaseline',
      );
    if (rebaselineFlag) {
      const { moved, files, commands } = await rebaseline();
      process.stdout.write(
        `rebaseline: ${files} committed results files checked (${commands.length} study reports and comparisons rerun through the CLI); ${moved.length === 0 ? 'no number moved' : `${moved.length} numbers moved:`}\n`,
      );
      if (moved.length > 0) process.stdout.write(`${movedTable(moved)}\n`);
      return;
    }
    if (updateSmokeFlag) {
      await updateSmoke();
      process.stdout.write('wrote results/smoke/\n');
      return;
    }
    const report = await reproduce({ expectedDir: join(ROOT, 'results'), run: 'runs/default' });
    // A file's own fingerprint note is printed only when it is not the headline's (every file of one run shares it).
    const headline = fingerprintDifferences(committedFingerprint(join(ROOT, 'results')), fingerprint()).join(
      ', ',
    );
    for (const { section, notes, problems } of report) {
      const own = notes.filter((note) => note !== `fingerprint differs: ${headline}`);
      process.stdout.write(
        `${problems.length === 0 ? 'ok  ' : 'FAIL'} ${section}${own.length > 0 ? ` (${own.join('; ')})` : ''}${problems.length > 0 ? `: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (+${problems.length - 5} more)` : ''}` : ''}\n`,
      );
    }
    const failed = report.filter(({ problems }) => problems.length > 0).length;
    process.stdout.write(`repro: ${report.length - failed} passed, ${failed} failed\n`);
    process.exitCode = failed === 0 ? 0 : 1;
  });
}
