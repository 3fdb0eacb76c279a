import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../agent/index.ts';
import { groupOutcomes, readResults, type ReadOptions } from '../eval/io/index.ts';
import { viewerData, type FileView } from '../cli/view/data.ts';
import { Rng } from '../lib/rng.ts';
import { servePage, type ViewerServer } from '../cli/view/page.ts';
import { fileSite, folderLogs, folderSite, readServed } from '../cli/view/site.ts';
import { startBrowser, watchPage, type PageProblems } from '../lib/browser.ts';
import { saveUntrainedCheckpoint } from './support/checkpoint.ts';
import { cli, expectCliError } from './support/cli.ts';

// `tinyagent view`: the episode viewer of a result file, driven in Debian's Chromium
// (lib/browser.ts). The result files are a smoke evaluation of an untrained checkpoint
// with transcripts (10 held-out tasks x 2 episodes), the same at another temperature (its CRN
// partner), a hand-written file with hostile strings, and other tools' files from samples/.

const ROOT = new URL('..', import.meta.url).pathname;
const HOSTILE = '<script>window.__pwned=1</script>';
const HOSTILE_IMG = '<img src=x onerror="window.__pwned=2">';

interface Turn {
  observation: string[];
  action: string[];
}
type Row = Record<string, any> & { task: string; sample: number; passed: boolean };

let work: string;
let fileA: string;
let fileB: string;
let hostileFile: string;
let rowsA: Row[];
let browser: Browser;
let screenshotDir: string;
const servers: ViewerServer[] = [];

const rowsOf = (path: string): Row[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as Row);

async function serve(paths: string[], options: ReadOptions = {}): Promise<ViewerServer> {
  const site = fileSite(
    await readServed(paths, () => Promise.all(paths.map((path) => readResults(path, options)))),
  );
  const server = await servePage(site.files, 0, site.dynamic);
  servers.push(server);
  return server;
}

/** The parts of the sample detail shown (label and text; a list of messages as role: text lines). */
async function shownDetail(page: Page): Promise<Record<string, string>> {
  await page.waitForSelector('#episode .detail[data-loaded="1"]', { timeout: 10_000 });
  return page.$$eval('#episode .detail-part', (parts) =>
    Object.fromEntries(
      parts.map((part) => [
        part.getAttribute('data-label') ?? '',
        part.querySelector('.messages') === null
          ? (part.querySelector('pre')?.textContent ?? '')
          : [...part.querySelectorAll('.message')]
              .map(
                (message) =>
                  `${message.querySelector('.role')?.textContent}: ${message.querySelector('pre')?.textContent}`,
              )
              .join('\n'),
      ]),
    ),
  );
}

/** The words the page uses for what it lists, and which TinyAgent-only parts it shows. */
async function pageWords(page: Page) {
  return page.evaluate(() => {
    const text = (selector: string) => document.querySelector(selector)?.textContent ?? null;
    const visible = (selector: string) =>
      (document.querySelector(selector) as HTMLElement | null)?.checkVisibility() ?? false;
    return {
      units: text('#tasks-heading'),
      rows: text('#episodes-heading'),
      filter: text('#filter-task-name'),
      all: text('#filter-task option'),
      column: text('#tasks thead tr:last-child th'),
      meanRow: text('#tasks tr.mean td'),
      firstEdit: visible('#filter-op-label'),
      summary: text('.file-summary') ?? '',
    };
  });
}

const jsonLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);

/** Opens a page, waits until the viewer has laid out its data; returns the page and what went wrong on it. */
async function open(url: string, width = 1100): Promise<{ page: Page; problems: PageProblems; ms: number }> {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 800 });
  const problems = watchPage(page);
  const started = performance.now();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
  return { page, problems, ms: performance.now() - started };
}

/** A raw request, the path sent as it is (no URL normalisation), and the status. */
function status(
  url: string,
  path: string,
  options: { method?: string; host?: string } = {},
): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.host === undefined ? {} : { host: options.host },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tinyagent-view-'));
  await initBackend({ preference: 'wasm' });
  const checkpoint = join(work, 'untrained');
  saveUntrainedCheckpoint(checkpoint);
  fileA = join(work, 'a.jsonl');
  fileB = join(work, 'b.jsonl');
  const smoke = ['eval', '--checkpoint', checkpoint, '--episodes', '2', '--seed', '3', '--transcripts'];
  expect((await cli([...smoke, '--out', fileA])).code).toBe(0);
  expect((await cli([...smoke, '--temperature', '0.5', '--out', fileB])).code).toBe(0);
  rowsA = rowsOf(fileA);
  hostileFile = join(work, 'hostile.jsonl');
  const hostileTurns: Turn[] = [
    {
      observation: ['<task>', HOSTILE, ':', HOSTILE_IMG, '</task>', '<act>'],
      action: [HOSTILE_IMG, '<end>'],
    },
    {
      observation: ['<obs>', '</obs><script>window.__pwned=3</script>', '</obs>', '<act>'],
      action: ['submit', '<end>'],
    },
  ];
  writeFileSync(
    hostileFile,
    [
      { harness: { model: HOSTILE } },
      {
        task: HOSTILE,
        sample: 0,
        passed: false,
        firstEditOp: HOSTILE_IMG,
        turns: 2,
        transcript: hostileTurns,
      },
      { task: HOSTILE, sample: 1, passed: true, [HOSTILE_IMG]: HOSTILE, transcript: HOSTILE },
      { task: HOSTILE_IMG, sample: 0, passed: true, ['__proto__']: { polluted: HOSTILE } },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  ({ browser, screenshotDir } = await startBrowser());
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('tinyagent view in a browser', () => {
  it("lists each task's episodes as the file holds them, and an episode's transcript turn by turn", async () => {
    const server = await serve([fileA]);
    const { page, problems, ms } = await open(server.url);
    console.log(`view: the smoke page (${rowsA.length} episodes) loaded in ${ms.toFixed(0)} ms`);
    const tasks = [...new Set(rowsA.map((row) => row.task))];
    expect(
      await page.$$eval('#tasks tbody tr[data-task-index] .task-name', (cells) =>
        cells.map((cell) => cell.textContent),
      ),
    ).toEqual(tasks);
    // The project's own words: tasks and their episodes, with the env's first-edit filter.
    const words = await pageWords(page);
    expect(words).toMatchObject({
      units: 'Tasks',
      rows: 'Episodes',
      filter: 'task',
      all: `all ${tasks.length} tasks`,
      column: 'task',
      meanRow: 'mean over tasks',
      firstEdit: true,
    });
    expect(words.summary).toContain(
      `${tasks.length} tasks, ${rowsA.length} episodes, ${rowsA.length} with transcripts`,
    );
    // the model of a tinyagent eval --out file: its checkpoint, from the provenance header
    expect(words.summary).toContain(`; model ${join(work, 'untrained')}; `);
    const task = tasks[1]!;
    const own = rowsA.filter((row) => row.task === task);
    await page.select('#filter-task', task);
    const listed = await page.$$eval('#episodes li', (items) =>
      items.map((item) => ({
        task: item.querySelector('.episode-task')?.textContent,
        sample: item.querySelector('.episode-sample')?.textContent,
        verdict: item.querySelector('.verdict')?.textContent,
        op: item.querySelector('.op')?.textContent,
      })),
    );
    expect(listed).toEqual(
      own.map((row) => ({
        task,
        sample: `sample ${row.sample}`,
        verdict: row.passed ? 'passed' : 'failed',
        op: row.firstEditOp ?? '(none)',
      })),
    );
    // Success counts as the file holds them.
    const counts = await page.$$eval('#tasks tbody tr[data-task-index] .count', (cells) =>
      cells.map((cell) => cell.textContent),
    );
    expect(counts).toEqual(
      tasks.map((name) => {
        const rows = rowsA.filter((row) => row.task === name);
        return `${rows.filter((row) => row.passed).length}/${rows.length}`;
      }),
    );

    // The longest episode of the task: every turn, what it saw and what it did, in order.
    const longest = own.reduce((best, row) => (row.transcript.length > best.transcript.length ? row : best));
    await page.click(`#episodes li:nth-child(${own.indexOf(longest) + 1})`);
    const turns = await page.$$eval('#episode .turn', (items) =>
      items.map((item) => ({
        observation: [...item.querySelectorAll('.saw .word')].map((word) => word.textContent),
        action: [...item.querySelectorAll('.did .word')].map((word) => word.textContent),
      })),
    );
    expect(turns).toEqual(longest.transcript);
    expect(turns.length).toBe(longest.turns);
    const end = await page.$$eval('#episode .end-field', (fields) =>
      fields.map((field) => field.textContent),
    );
    expect(end).toEqual([
      `passed: ${longest.passed}`,
      `reward: ${longest.reward}`,
      `submitted: ${longest.submitted}`,
      `public tests: ${longest.publicPass}`,
      `hidden tests: ${longest.hiddenPass}`,
    ]);
    await page.screenshot({ path: join(screenshotDir, 'view-episode.png') });

    // Filters: failed only, then by first-edit op, over all tasks.
    await page.select('#filter-task', '');
    await page.click('#filter-failed');
    const failedShown = await page.$$eval('#episodes li .verdict', (items) =>
      items.map((item) => item.textContent),
    );
    expect(failedShown).toEqual(rowsA.filter((row) => !row.passed).map(() => 'failed'));
    await page.click('#filter-failed');
    const opOf = (row: Row) => (row.firstEditOp as string | null) ?? '(none)';
    const op = opOf(rowsA.find((row) => row.firstEditOp !== null) ?? rowsA[0]!);
    await page.select('#filter-op', op);
    const byOp = await page.$$eval('#episodes li', (items) =>
      items.map(
        (item) =>
          `${item.querySelector('.episode-task')?.textContent}${item.querySelector('.episode-sample')?.textContent}`,
      ),
    );
    expect(byOp).toEqual(
      rowsA.filter((row) => opOf(row) === op).map((row) => `${row.task}sample ${row.sample}`),
    );
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();
  });

  it('renders hostile strings from the file as text and runs none of them', async () => {
    const server = await serve([hostileFile]);
    const { page, problems } = await open(server.url);
    await page.click('#episodes li:nth-child(1)');
    const shown = await page.evaluate(() => ({
      pwned: String((window as unknown as { __pwned?: number }).__pwned),
      scripts: document.scripts.length,
      images: document.images.length,
      tasks: [...document.querySelectorAll('#tasks .task-name')].map((cell) => cell.textContent),
      saw: [...document.querySelectorAll('#episode .turn .word')].map((word) => word.textContent),
      title: document.querySelector('#episode h2')?.textContent,
      polluted: String(({} as Record<string, unknown>).polluted),
    }));
    expect(shown).toMatchObject({ pwned: 'undefined', scripts: 2, images: 0, polluted: 'undefined' });
    expect(shown.tasks).toEqual([HOSTILE, HOSTILE_IMG]);
    expect(shown.saw).toContain(HOSTILE);
    expect(shown.saw).toContain('</obs><script>window.__pwned=3</script>');
    expect(shown.title).toBe(`task ${HOSTILE} · sample 0`);
    // A transcript that is not a list of turns is shown as what it is, as text.
    await page.click('#episodes li:nth-child(2)');
    expect(await page.$eval('#episode .note', (note) => note.textContent)).toContain(JSON.stringify(HOSTILE));
    await page.click('#episodes li:nth-child(3)');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();
  });

  it('pairs episode i of two files side by side: the same renamed task under both (CRN)', async () => {
    const server = await serve([fileA, fileB]);
    const { page, problems } = await open(server.url);
    expect(await page.$eval('.pairing', (line) => line.textContent)).toMatch(
      /20 episodes paired by task and sample; common random numbers/,
    );
    await page.click('#episodes li:nth-child(3)');
    const columns = await page.$$eval('#episode .episode-column', (items) =>
      items.map((item) => ({
        side: item.getAttribute('data-side'),
        title: item.querySelector('h2')?.textContent,
        first: [...item.querySelectorAll('.turn:first-child .saw .word')].map((word) => word.textContent),
      })),
    );
    const rowsB = rowsOf(fileB);
    const [a, b] = [rowsA[2]!, rowsB[2]!];
    expect(columns).toEqual([
      { side: 'A', title: `A · task ${a.task} · sample ${a.sample}`, first: a.transcript[0].observation },
      { side: 'B', title: `B · task ${b.task} · sample ${b.sample}`, first: b.transcript[0].observation },
    ]);
    // The same renamed task: both saw the same first observation.
    expect(columns[0]!.first).toEqual(columns[1]!.first);
    expect(await page.$eval('#episode .pair-note', (note) => note.textContent)).toMatch(/^same env seed/);
    await page.screenshot({ path: join(screenshotDir, 'view-compare.png') });
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();
  });

  it("opens other tools' files, showing their per-sample rows; --out writes a page that opens from disk", async () => {
    const out = join(work, 'page');
    const written = await cli(['view', 'samples/humaneval/samples.jsonl_results.jsonl', '--out', out]);
    expect(written.code).toBe(0);
    expect(written.stdout).toMatch(/^wrote .*index\.html \(\d+ tasks, \d+ rows\): open it in a browser\n$/);
    const humaneval = await readResults('samples/humaneval/samples.jsonl_results.jsonl');
    const { page, problems } = await open(pathToFileURL(join(out, 'index.html')).href);
    expect(await page.$$eval('#tasks tbody tr[data-task-index]', (rows) => rows.length)).toBe(
      new Set(humaneval.rows.map((row) => row.task)).size,
    );
    await page.click('#episodes li:nth-child(1)');
    expect(await page.$eval('#episode .detail .note', (note) => note.textContent)).toMatch(
      /^This page was written to disk: it holds the outcomes of the humaneval file\. .*tinyagent view FILE/,
    );
    expect(
      await page.$$eval('#episode .fields th', (cells) => cells.map((cell) => cell.textContent)),
    ).toEqual(Object.keys(humaneval.rows[0]!.extra ?? {}));
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();

    for (const sample of [
      'samples/inspect/arith-model-b.json',
      'samples/lm-eval/samples_boolq_2026-08-20T10-15-02.318204.jsonl',
    ]) {
      const server = await serve([sample]);
      const opened = await open(server.url);
      expect(
        await opened.page.$$eval('#tasks tbody tr[data-task-index]', (rows) => rows.length),
      ).toBeGreaterThan(0);
      expect(opened.problems).toEqual({ errors: [], failedRequests: [] });
      await opened.page.close();
    }
  });

  it('shows an Inspect sample as Inspect records it: messages, target, answer, score value and explanation', async () => {
    const path = 'samples/inspect/arith-model-b.json';
    const log = JSON.parse(readFileSync(path, 'utf8')) as { samples: Array<Record<string, any>> };
    const server = await serve([path]);
    const { page, problems } = await open(server.url);
    // Inspect's words: samples by id, each run for epochs numbered from 1; no TinyAgent filter.
    const ids = new Set(log.samples.map((one) => one.id));
    const words = await pageWords(page);
    expect(words).toMatchObject({
      units: 'Samples',
      rows: 'Epochs',
      filter: 'sample',
      all: `all ${ids.size} samples`,
      column: 'sample',
      meanRow: 'mean over samples',
      firstEdit: false,
    });
    expect(words.summary).toContain(
      `; ${ids.size} samples, ${log.samples.length} epochs; mean over samples:`,
    );
    expect(words.summary).not.toContain('transcripts');
    expect(words.summary).toContain('model mockllm/model-b, date 2026-08-20T10:02:00+00:00, status success');
    // Sample id "3", epoch 2: the task's second episode.
    await page.select('#filter-task', '3');
    expect(
      await page.$$eval('#episodes li .episode-sample', (items) => items.map((item) => item.textContent)),
    ).toEqual(['epoch 1', 'epoch 2', 'epoch 3']);
    await page.click('#episodes li:nth-child(2)');
    expect(await page.$eval('#episode h2', (title) => title.textContent)).toBe('sample 3 · epoch 2');
    const sample = log.samples.find((one) => one.id === '3' && one.epoch === 2)!;
    const score = sample.scores.match;
    expect(await shownDetail(page)).toEqual({
      input: sample.input,
      target: sample.target,
      output: sample.output.completion,
      'match: value': score.value,
      'match: answer': score.answer,
      'match: explanation': score.explanation,
      messages: sample.messages.map((message: any) => `${message.role}: ${message.content}`).join('\n'),
    });
    expect(await page.$$eval('#episode .detail-part .message', (items) => items.length)).toBe(2);
    await page.screenshot({ path: join(screenshotDir, 'view-inspect-sample.png') });
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();

    // The .eval archive: the same parts, read from its sample entry.
    const archive = await serve(['samples/inspect/arith-model-a.eval']);
    const opened = await open(archive.url);
    await opened.page.select('#filter-task', '2');
    await opened.page.click('#episodes li:nth-child(2)');
    const shown = await shownDetail(opened.page);
    expect(Object.keys(shown)).toEqual([
      'input',
      'target',
      'output',
      'match: value',
      'match: answer',
      'match: explanation',
      'messages',
    ]);
    expect(shown['match: value']).toBe('I');
    expect(shown.messages).toBe(`user: ${shown.input}\nassistant: ${shown.output}`);
    expect(opened.problems).toEqual({ errors: [], failedRequests: [] });
    await opened.page.close();
  });

  it("shows an lm-evaluation-harness line's arguments, resps, filtered_resps, target and metric, and HumanEval's completion and result", async () => {
    const path = 'samples/lm-eval/samples_gsm8k_2026-08-20T10-15-02.318204.jsonl';
    const lines = jsonLines(path).filter((line) => line.filter === 'strict-match');
    const server = await serve([path], { filter: 'strict-match' });
    const { page, problems } = await open(server.url);
    // lm-evaluation-harness's words: documents, each scored once (one logged sample each)
    expect(await pageWords(page)).toMatchObject({
      units: 'Documents',
      rows: 'Samples',
      filter: 'document',
      all: `all ${lines.length} documents`,
      column: 'document',
      firstEdit: false,
    });
    await page.click('#episodes li:nth-child(2)');
    const line = lines[1]!;
    expect(await page.$eval('#episodes li:nth-child(2) .episode-sample', (item) => item.textContent)).toBe(
      '',
    );
    expect(await page.$eval('#episode h2', (title) => title.textContent)).toBe(`document ${line.doc_id}`);
    const pretty = (value: unknown) => JSON.stringify(value, null, 2);
    expect(await shownDetail(page)).toEqual({
      doc: pretty(line.doc),
      target: line.target,
      arguments: pretty(line.arguments),
      resps: pretty(line.resps),
      filtered_resps: pretty(line.filtered_resps),
      filter: 'strict-match',
      'metric exact_match': pretty(line.exact_match),
    });
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();

    const humanevalPath = 'samples/humaneval/samples.jsonl_results.jsonl';
    const results = jsonLines(humanevalPath);
    const humaneval = await serve([humanevalPath]);
    const opened = await open(humaneval.url);
    const failing = results.findIndex((result) => result.passed === false);
    await opened.page.click(`#episodes li:nth-child(${failing + 1})`);
    expect(await shownDetail(opened.page)).toEqual({
      task_id: results[failing]!.task_id,
      completion: results[failing]!.completion,
      result: results[failing]!.result,
      passed: 'false',
    });
    expect(opened.problems).toEqual({ errors: [], failedRequests: [] });
    await opened.page.close();
  });

  it("shows hostile messages of another tool's file as text and runs none of them", async () => {
    const path = join(work, 'hostile-inspect.json');
    const log = JSON.parse(readFileSync('samples/inspect/arith-model-b.json', 'utf8')) as Record<string, any>;
    log.samples = [log.samples[0]];
    Object.assign(log.samples[0], {
      input: HOSTILE,
      target: HOSTILE_IMG,
      messages: [
        { role: 'user', content: HOSTILE },
        { role: HOSTILE_IMG, content: [{ type: 'text', text: HOSTILE_IMG }] },
      ],
    });
    log.samples[0].scores.match.explanation = '</pre><script>window.__pwned=4</script>';
    writeFileSync(path, JSON.stringify(log));
    const server = await serve([path]);
    const { page, problems } = await open(server.url);
    await page.click('#episodes li:nth-child(1)');
    const shown = await shownDetail(page);
    expect(shown).toMatchObject({
      input: HOSTILE,
      target: HOSTILE_IMG,
      'match: explanation': '</pre><script>window.__pwned=4</script>',
      messages: `user: ${HOSTILE}\n${HOSTILE_IMG}: ${HOSTILE_IMG}`,
    });
    expect(
      await page.evaluate(() => ({
        pwned: String((window as unknown as { __pwned?: number }).__pwned),
        scripts: document.scripts.length,
        images: document.images.length,
      })),
    ).toEqual({ pwned: 'undefined', scripts: 2, images: 0 });
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();
  });

  it('collapses a long tool output to its first 15 lines, a long message to 25, each with a button for the rest', async () => {
    const path = join(work, 'tool-output.json');
    const log = JSON.parse(readFileSync('samples/inspect/arith-model-b.json', 'utf8')) as Record<string, any>;
    log.samples = [log.samples[0]];
    const lines = (count: number, word: string) =>
      Array.from({ length: count }, (_, i) => `${word} line ${i + 1}`).join('\n');
    log.samples[0].messages = [
      { role: 'user', content: 'list the files' },
      { role: 'assistant', content: '', tool_calls: [{ function: 'bash', arguments: { cmd: 'ls' } }] },
      { role: 'tool', content: lines(60, 'tool') },
      { role: 'tool', content: lines(12, 'short') },
      { role: 'assistant', content: lines(40, 'answer') },
    ];
    writeFileSync(path, JSON.stringify(log));
    const server = await serve([path]);
    const { page, problems } = await open(server.url);
    await page.click('#episodes li:nth-child(1)');
    await shownDetail(page);
    const blocks = () =>
      page.$$eval('#episode .message', (items) =>
        items.map((item) => {
          const pre = item.querySelector('pre')!;
          return {
            role: item.getAttribute('data-role'),
            collapsed: pre.classList.contains('collapsed'),
            cut: pre.scrollHeight > pre.clientHeight + 1,
            // lines shown: the visible height over one line's height
            shown: Math.round(pre.clientHeight / parseFloat(getComputedStyle(pre).lineHeight)),
            button: item.querySelector('button.expand')?.textContent ?? null,
          };
        }),
      );
    const before = await blocks();
    expect(before.map(({ role, collapsed, cut, button }) => ({ role, collapsed, cut, button }))).toEqual([
      { role: 'user', collapsed: false, cut: false, button: null },
      { role: 'assistant', collapsed: false, cut: false, button: null },
      { role: 'tool', collapsed: true, cut: true, button: 'show all 60 lines' },
      { role: 'tool', collapsed: false, cut: false, button: null },
      { role: 'assistant', collapsed: true, cut: true, button: 'show all 40 lines' },
    ]);
    expect(before[2]!.shown).toBeGreaterThanOrEqual(14);
    expect(before[2]!.shown).toBeLessThanOrEqual(16);
    expect(before[4]!.shown).toBeGreaterThanOrEqual(24);
    expect(before[4]!.shown).toBeLessThanOrEqual(26);
    // the whole text is in the page, and the button shows it
    expect(await page.$eval('#episode .message:nth-child(3) pre', (pre) => pre.textContent)).toBe(
      lines(60, 'tool'),
    );
    await page.click('#episode .message:nth-child(3) button.expand');
    const after = await blocks();
    expect(after[2]).toMatchObject({ collapsed: false, cut: false, button: 'show fewer' });
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();
  });

  it("shows graded scores as scores: partial credit 0.5, each task's mean score, no pass@k", async () => {
    const path = 'samples/inspect/arith-two-scorers.json';
    const server = await serve([path], { scorer: 'model_graded_fact' });
    const { page, problems } = await open(server.url);
    const head = await page.$$eval('#tasks thead th', (cells) => cells.map((cell) => cell.textContent));
    expect(head).toEqual(['sample', 'passed', 'mean score']);
    const file = await readResults(path, { scorer: 'model_graded_fact' });
    const means = new Map<string, number[]>();
    for (const row of file.rows) means.set(row.task, [...(means.get(row.task) ?? []), row.score!]);
    const expected = [...means.values()].map((scores) => scores.reduce((a, b) => a + b, 0) / scores.length);
    expect(
      await page.$$eval('#tasks tbody tr[data-task-index] .score', (cells) =>
        cells.map((cell) => cell.textContent),
      ),
    ).toEqual(expected.map((value) => value.toFixed(4)));
    expect(await page.$eval('.file-summary', (line) => line.textContent)).toMatch(
      new RegExp(
        `mean score ${(expected.reduce((a, b) => a + b, 0) / expected.length).toFixed(4)} \\[\\d\\.\\d{4}, \\d\\.\\d{4}\\] \\(graded scores: pass@k is not defined\\)`,
      ),
    );
    const verdicts = await page.$$eval('#episodes li .verdict', (items) =>
      items.map((item) => item.textContent),
    );
    expect(verdicts).toEqual(
      file.rows.map((row) => (row.score === 0.5 ? 'score 0.5' : row.passed ? 'passed' : 'failed')),
    );
    expect(verdicts.filter((verdict) => verdict === 'score 0.5')).toHaveLength(2);
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();
  });

  it('opens a folder of logs as a list of the result files it can read, each opening on a click', async () => {
    const logs = await folderLogs('samples', {});
    const { paths } = logs;
    const site = folderSite(logs, {});
    const server = await servePage(site.files, 0, site.dynamic);
    servers.push(server);
    const { page, problems } = await open(server.url);
    const listed = await page.$$eval('#logs tbody tr', (rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
    );
    // Every file the readers read, as metrics reads it, in name order: file, task, model, score
    // (the mean over units of pass@1), status, date, size and format, as Inspect's log list has them.
    const expected = [];
    for (const path of paths) {
      const file = await readResults(path);
      // each task's samples as eval groups them (a duplicate once, a multi-turn sample by its last turn)
      const { tasks } = groupOutcomes(file.rows);
      const means = tasks.map(({ outcomes }) => outcomes.reduce((a, b) => a + b, 0) / outcomes.length);
      const score = means.reduce((a, b) => a + b, 0) / means.length;
      expected.push([
        path.slice('samples/'.length),
        expect.any(String),
        expect.any(String),
        `${(100 * score).toFixed(1)}% pass@1`,
        expect.any(String),
        expect.any(String),
        expect.stringMatching(new RegExp(`^${tasks.length} (tasks|samples|documents)`)),
        file.format,
      ]);
    }
    expect(listed).toEqual(expected);
    const row = (name: string) => listed.find((one) => one[0] === name);
    expect(row('inspect/arith-model-b.json')).toEqual([
      'inspect/arith-model-b.json',
      'arith',
      'mockllm/model-b',
      '79.2% pass@1', // samples/inspect/README.md: accuracy 0.7917
      'success',
      '2026-08-20 10:02',
      '8 samples, 24 epochs',
      'inspect-json',
    ]);
    expect(row('lm-eval/samples_boolq_2026-08-20T10-15-02.318204.jsonl')?.slice(1)).toEqual([
      'boolq',
      'EleutherAI/pythia-160m',
      expect.stringMatching(/% pass@1$/),
      '-',
      '2026-08-20 10:15',
      '10 documents',
      'lm-eval',
    ]);
    expect(row('humaneval/samples.jsonl_results.jsonl')).toBeDefined();
    // The list has no filters: the filter bar is hidden, not shown empty.
    expect(await page.$eval('#filters', (bar) => (bar as HTMLElement).checkVisibility())).toBe(false);
    // Files that are not result files are listed apart, each with the readers' reason.
    const unread = await page.$$eval('.unread li', (items) => items.map((item) => item.textContent));
    expect(unread).toContainEqual(
      expect.stringMatching(/^humaneval\/samples\.jsonl: .*a HumanEval samples file, not its results/),
    );
    expect(unread).toContainEqual(
      expect.stringMatching(/^inspect\/arith-two-scorers\.json: .*pass --scorer NAME/),
    );
    await page.screenshot({ path: join(screenshotDir, 'view-folder.png') });
    // only the list's own pages: /log/N/ for the files it read, nothing else below it
    for (const path of ['/log/0/', '/log/0/index.html', '/log/0/data.js', '/log/0/viewer.js'])
      expect(await status(server.url, path), path).toBe(200);
    for (const path of [
      `/log/${paths.length}/`,
      '/log/00/',
      '/log/0/../../package.json',
      '/log/0/%2e%2e/package.json',
      '/log/0/package.json',
      '/log/-1/',
      '/log/0/sample?file=1&task=a&sample=0',
    ])
      expect(await status(server.url, path), path).toBe(404);
    expect(await status(server.url, '/log/0/', { host: 'attacker.example:80' })).toBe(404);
    // A click opens the file's page, with its samples' details.
    const index = listed.findIndex((row) => row[0] === 'inspect/arith-model-a.eval');
    await Promise.all([page.waitForNavigation(), page.click(`#logs tbody tr:nth-child(${index + 1}) a`)]);
    await page.waitForSelector('body[data-ready="1"]');
    const file = await readResults('samples/inspect/arith-model-a.eval');
    expect(await page.$$eval('#tasks tbody tr[data-task-index]', (rows) => rows.length)).toBe(
      new Set(file.rows.map((row) => row.task)).size,
    );
    expect(await page.$eval('.file-path .path', (item) => item.textContent)).toBe(
      'samples/inspect/arith-model-a.eval',
    );
    await page.click('#episodes li:nth-child(1)');
    expect((await shownDetail(page))['match: value']).toMatch(/^[CI]$/);
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();

    // The command: a folder prints its list's URL; --out writes the list and each file's page.
    const out = join(work, 'folder-page');
    const written = await cli(['view', 'samples/inspect', '--out', out]);
    expect(written.stdout).toMatch(/^wrote .*index\.html \(3 result files of 5\): open it in a browser\n$/);
    const fromDisk = await open(pathToFileURL(join(out, 'index.html')).href);
    await Promise.all([
      fromDisk.page.waitForNavigation(),
      fromDisk.page.click('#logs tbody tr:nth-child(1) a'),
    ]);
    await fromDisk.page.waitForSelector('body[data-ready="1"]');
    expect(fromDisk.page.url()).toMatch(/\/log\/0\/index\.html#?$/);
    expect(await fromDisk.page.$eval('.file-path .path', (item) => item.textContent)).toBe(
      'samples/inspect/arith-model-a-deflate.eval',
    );
    expect(fromDisk.problems).toEqual({ errors: [], failedRequests: [] });
    await fromDisk.page.close();
  });
});

describe('tinyagent view serves its page and nothing else, on 127.0.0.1 only', () => {
  it('answers the page and the data, 404 to any other path or host', async () => {
    const server = await serve([fileA]);
    expect(server.server.address()).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
    for (const path of ['/', '/index.html', '/viewer.js', '/viewer.css', '/data.js', '/?x=1'])
      expect(await status(server.url, path), path).toBe(200);
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/%2E%2E%2Fpackage.json',
      '/data.js/../../package.json',
      '//etc/passwd',
      '/cli/view/page.ts',
      '/view/viewer.js',
      '/package.json',
      fileA,
      '/favicon.ico',
      '/index.html/',
      // a sample's detail is for other tools' files, by index into what was read: never a path
      `/sample?file=0&task=${encodeURIComponent(rowsA[0]!.task)}&sample=0`,
      '/sample?file=../../package.json&task=a&sample=0',
      '/sample?file=1&task=a&sample=0',
      '/log/0/',
    ])
      expect(await status(server.url, path), path).toBe(404);
    // Not a path at all: Node's parser answers 400 before the viewer sees it.
    for (const path of ['index.html', '*', '../package.json'])
      expect([400, 404], path).toContain(await status(server.url, path));
    expect(await status(server.url, '/', { host: 'attacker.example:80' })).toBe(404);
    expect(await status(server.url, '/', { method: 'POST' })).toBe(405);
  });

  it('the command prints its URL, listens on 127.0.0.1 and not on other addresses, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/tinyagent.js', 'view', fileA, '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\n')) resolve(text);
        });
        child.on('exit', () => reject(new Error(`view exited early: ${text}`)));
      });
      const url = /(http:\/\/127\.0\.0\.1:(\d+)\/)/.exec(line);
      expect(line).toMatch(
        /^episode viewer of .*a\.jsonl \(10 tasks, 20 rows\): http:\/\/127\.0\.0\.1:\d+\/ {2}\(Ctrl-C stops it\)\n$/,
      );
      expect(await status(url![1]!, '/')).toBe(200);
      const port = Number(url![2]);
      const others = Object.values(networkInterfaces())
        .flat()
        .filter((address) => address !== undefined && !address.internal)
        .map((address) => address!.address);
      for (const address of ['::1', ...others]) {
        const refused = await new Promise<string>((resolve) => {
          const socket = connect({ host: address, port }, () => {
            socket.destroy();
            resolve('connected');
          });
          socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        });
        expect(refused, address).not.toBe('connected');
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('tinyagent view answers one line (422) for a file changed since it was read', () => {
  const LOG = 'samples/inspect/arith-model-b.json';
  const INPUT = '"input": "What is 17 + 25? Answer with the number only."';
  /** Sample "1", epoch 1 (the file's first): its score C made I (the same size), or its input made CHANGED. */
  const EDITS: Record<string, (text: string) => string> = {
    'the same size': (text) => text.replace('"value": "C"', '"value": "I"'),
    'another size': (text) => text.replace(INPUT, '"input": "CHANGED"'),
  };
  const DETAIL = 'sample?file=0&task=1&sample=0';

  /** Copies LOG to each path; returns how to edit one of them. */
  function copies(...paths: string[]) {
    const text = readFileSync(LOG, 'utf8');
    for (const path of paths) {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    }
    return (path: string, edit: string) => {
      const edited = EDITS[edit]!(text);
      const first = (JSON.parse(edited) as { samples: Array<Record<string, any>> }).samples[0]!;
      expect([first.id, first.epoch]).toEqual(['1', 1]);
      expect(first.scores.match.value === 'I' || first.input === 'CHANGED').toBe(true);
      expect(edited.length === text.length).toBe(edit === 'the same size');
      writeFileSync(path, edited);
    };
  }

  async function get(url: string, path: string): Promise<{ status: number; body: string }> {
    const response = await fetch(new URL(path, url));
    return { status: response.status, body: await response.text() };
  }

  /** The 422 a changed file answers: its path in one line, and nothing of what it holds now. */
  function expectChanged(answer: { status: number; body: string }, path: string) {
    expect(answer.status).toBe(422);
    expect(answer.body).toContain(`${path}: the file changed since it was read`);
    expect(answer.body).not.toContain('CHANGED');
    expect(answer.body.trim().split('\n')).toHaveLength(1);
  }

  for (const edit of Object.keys(EDITS))
    it(`one file and two side by side, edited to ${edit}`, async () => {
      const [a, b] = [join(work, 'changed', edit, 'a.json'), join(work, 'changed', edit, 'b.json')];
      const change = copies(a, b);
      const one = await serve([a]);
      const pair = await serve([a, b]);
      expect((await get(one.url, DETAIL)).status).toBe(200);
      expect((await get(pair.url, DETAIL.replace('file=0', 'file=1'))).status).toBe(200);
      change(b, edit);
      expectChanged(await get(pair.url, DETAIL.replace('file=0', 'file=1')), b);
      // another sample of the changed file too; the other file still answers
      expectChanged(await get(pair.url, 'sample?file=1&task=3&sample=1'), b);
      expect((await get(pair.url, DETAIL)).status).toBe(200);
      change(a, edit);
      expectChanged(await get(one.url, DETAIL), a);
      expectChanged(await get(pair.url, DETAIL), a);
    });

  it("a folder's file, whether its page is open or opened again", async () => {
    const dir = join(work, 'changed-folder');
    const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
    const change = copies(a, b);
    const site = folderSite(await folderLogs(dir, {}), {});
    const server = await servePage(site.files, 0, site.dynamic);
    servers.push(server);
    expect((await get(server.url, `log/0/${DETAIL}`)).status).toBe(200);
    change(a, 'the same size');
    expectChanged(await get(server.url, `log/0/${DETAIL}`), a);
    expect((await get(server.url, `log/1/${DETAIL}`)).status).toBe(200);
    expectChanged(await get(server.url, 'log/0/data.js'), a);
    expectChanged(await get(server.url, `log/0/${DETAIL}`), a);
    change(b, 'another size');
    expectChanged(await get(server.url, `log/1/${DETAIL}`), b);
  });
});

describe("the viewer's numbers", () => {
  /**
   * Two files of 12 tasks x 12 samples (pass@1, 5, 10, 12 columns on each side) whose tasks
   * differ in difficulty and whose B passes a little more often, drawn from a seeded Rng.
   */
  function pairOfFiles(): [string, string] {
    const rng = new Rng(11);
    const paths: [string, string] = [join(work, 'wide-a.jsonl'), join(work, 'wide-b.jsonl')];
    const rates = Array.from({ length: 12 }, (_, t) => (t + 0.5) / 12);
    paths.forEach((path, side) => {
      const rows = rates.flatMap((rate, t) =>
        Array.from({ length: 12 }, (_, sample) => ({
          task: `a_longer_task_name_${String(t).padStart(2, '0')}`,
          sample,
          passed: rng.next() < Math.min(1, rate + 0.15 * side),
          firstEditOp: ['fix_comparison', 'add_zero_guard', 'remove_negation'][rng.int(3)],
        })),
      );
      writeFileSync(path, rows.map((row) => JSON.stringify(row)).join('\n'));
    });
    return paths;
  }

  it("are eval's pass@k per task, and their task mean is what tinyagent metrics reports", async () => {
    const view = viewerData([await readResults(fileA)]).files[0]!;
    expect(view.ks).toEqual([1, 2]);
    for (const task of view.tasks) {
      const rows = rowsA.filter((row) => row.task === task.task);
      const c = rows.filter((row) => row.passed).length;
      // Chen et al. (2021) eq. 1 with n = 2: pass@1 = c/2, pass@2 = 1 unless c = 0.
      expect(task.passAtK).toEqual([c / 2, c > 0 ? 1 : 0]);
      expect(task.episodes.map((episode) => episode.transcript)).toEqual(rows.map((row) => row.transcript));
    }
    expect(view.transcripts).toBe(rowsA.length);
  });

  it('give each mean its task-level interval, the one tinyagent metrics prints, in the task table', async () => {
    const [path] = pairOfFiles();
    const view = viewerData([await readResults(path)]).files[0]!;
    expect(view.ks).toEqual([1, 5, 10, 12]);
    const metrics = JSON.parse((await cli(['metrics', path, '--json'])).stdout) as {
      passAtK: Record<string, { estimate: number; low: number; high: number }>;
    };
    expect(view.passAtK).toEqual(view.ks.map((k) => metrics.passAtK[String(k)]));
    // a real interval: wider than a point, around the estimate
    expect(view.passAtK[0]!.high! - view.passAtK[0]!.low!).toBeGreaterThan(0.1);
    const server = await serve([path]);
    const { page, problems } = await open(server.url);
    const share = (value: number) => (100 * value).toFixed(1);
    expect(
      await page.$$eval('#tasks tr.interval-row td', (cells) => cells.map((cell) => cell.textContent)),
    ).toEqual([
      '95% interval',
      '',
      ...view.ks.map((k) => {
        const { low, high } = metrics.passAtK[String(k)]!;
        return `[${share(low)}, ${share(high)}]`;
      }),
    ]);
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();

    // Graded scores: the mean score's interval, as metrics prints it for them.
    const graded = 'samples/inspect/arith-two-scorers.json';
    const gradedView = viewerData([await readResults(graded, { scorer: 'model_graded_fact' })]).files[0]!;
    const gradedMetrics = JSON.parse(
      (await cli(['metrics', graded, '--scorer', 'model_graded_fact', '--json'])).stdout,
    ) as { meanScore: { estimate: number; low: number; high: number } };
    expect(gradedView.meanScore).toEqual({
      estimate: gradedMetrics.meanScore.estimate,
      low: gradedMetrics.meanScore.low,
      high: gradedMetrics.meanScore.high,
    });
  });

  it('side by side: B - A per task and over tasks with the paired interval tinyagent compare prints, within 1280 px', async () => {
    const [pathA, pathB] = pairOfFiles();
    const data = viewerData([await readResults(pathA), await readResults(pathB)]);
    const compare = JSON.parse((await cli(['compare', pathA, pathB, '--json'])).stdout) as {
      difference: { estimate: number; low: number; high: number };
    };
    const { estimate, low, high } = compare.difference;
    expect(data.difference?.mean).toMatchObject({ estimate, low, high, commonTasks: 12 });
    expect(low).toBeLessThan(estimate);
    const [a, b] = data.files as [FileView, FileView];
    expect(data.difference?.perTask).toEqual(
      a.tasks.map((task, t) => b.tasks[t]!.successes / 12 - task.successes / 12),
    );
    const server = await serve([pathA, pathB]);
    const { page, problems } = await open(server.url, 1280);
    const points = (value: number) => `${value >= 0 ? '+' : '-'}${Math.abs(100 * value).toFixed(1)}`;
    const column = await page.$$eval('#tasks tbody td.difference', (cells) =>
      cells.map((cell) => cell.textContent),
    );
    expect(column).toEqual([
      ...data.difference!.perTask.map((value) => points(value!)),
      points(estimate),
      `[${points(low)}, ${points(high)}]`,
    ]);
    expect(
      await page.$$eval('#tasks thead tr:first-child th', (cells) => cells.map((cell) => cell.textContent)),
    ).toEqual(['', 'A', 'B', '']);
    // Nothing runs off the page or is cut off in its pane: not the table, not an episode's line.
    const overflow = await page.evaluate(() => {
      const wider = (selector: string) =>
        [...document.querySelectorAll(selector)]
          .filter((node) => node.scrollWidth > node.clientWidth)
          .map((node) => node.id || node.className || node.tagName);
      return {
        page: document.documentElement.scrollWidth,
        panes: wider('#tasks-pane, #episodes-pane, #episodes, #episodes li, #episode'),
      };
    });
    expect(overflow).toEqual({ page: 1280, panes: [] });
    await page.click('#episodes li:nth-child(1)');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(1280);
    await page.screenshot({ path: join(screenshotDir, 'view-compare-1280.png') });
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();

    // Graded scores have no paired difference of pass rates: no column, and the reason.
    const graded = 'samples/inspect/arith-two-scorers.json';
    const both = await serve([graded, graded], { scorer: 'model_graded_fact' });
    const opened = await open(both.url);
    expect(await opened.page.$$eval('#tasks .difference', (cells) => cells.length)).toBe(0);
    expect(
      await opened.page.$$eval('.pairing', (lines) => lines.map((line) => line.textContent).join('\n')),
    ).toMatch(/B - A: n\/a: .*graded scores/);
    expect(opened.problems).toEqual({ errors: [], failedRequests: [] });
    await opened.page.close();
  });
});

describe('tinyagent view refuses bad flags and files in one line', () => {
  it('usage errors exit 2', async () => {
    await expectCliError(['view'], 2, /expected at least 1 argument/);
    await expectCliError(['view', fileA, fileB, fileA], 2, /unexpected argument/);
    await expectCliError(['view', fileA, fileB, '--compare', fileB], 2, /give the second file once/);
    await expectCliError(['view', fileA, '--port', '70000'], 2, /--port must be in \[0, 65535\], got 70000/);
    await expectCliError(['view', fileA, '--port', 'x'], 2, /--port must be a decimal integer/);
    await expectCliError(['view', fileA, '--port', '0', '--out', join(work, 'o')], 2, /give one of them/);
    await expectCliError(['view', fileA, '--scorer', 'match'], 2, /--scorer applies to Inspect logs/);
    await expectCliError(['view', fileA, '--bogus'], 2, /unknown flag '--bogus'/);
  });

  it('a missing file, a folder, malformed JSON, an unknown format, a file at --out, a port in use exit 1', async () => {
    const folder = join(work, 'a-folder');
    mkdirSync(folder, { recursive: true });
    const malformed = join(work, 'malformed.jsonl');
    writeFileSync(malformed, '{"task": "a", "sample": 0, "passed": true}\n{"task": "a", "sam');
    const unknown = join(work, 'unknown.json');
    writeFileSync(unknown, '{"colour": "blue"}\n');
    await expectCliError(['view', join(work, 'missing.jsonl')], 1, /missing\.jsonl: no such file/);
    await expectCliError(
      ['view', folder],
      1,
      /a-folder: no result file the readers detect in this folder \(0 files looked at\)/,
    );
    await expectCliError(
      ['view', 'samples', '--compare', fileA],
      2,
      /samples is a folder: .*compare two files/,
    );
    await expectCliError(['view', malformed], 1, /malformed\.jsonl:2: /);
    await expectCliError(['view', unknown], 1, /unknown\.json:1: /);
    await expectCliError(['view', fileA, '--compare', join(work, 'missing.jsonl')], 1, /no such file/);
    await expectCliError(['view', fileA, '--out', fileB], 1, /--out: '.*b\.jsonl' is not a folder/);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      await expectCliError(
        ['view', fileA, '--port', String(port)],
        1,
        new RegExp(`--port ${port} is in use`),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
