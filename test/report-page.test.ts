import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../experiments/common.ts';
import { main as buildReportPage, provenance } from '../experiments/report-page.ts';
import { escapeHtml, jsonScript, markdownToHtml } from '../experiments/report/html.ts';
import { startBrowser, watchPage, type PageProblems } from '../lib/browser.ts';

const HOSTILE = '<script>window.__pwned=1</script>';
const RESULTS = join(ROOT, 'results');

let browser: Browser;
let screenshotDir: string;
let work: string;
let full: Awaited<ReturnType<typeof build>>;

beforeAll(async () => {
  ({ browser, screenshotDir } = await startBrowser());
  work = mkdtempSync(join(tmpdir(), 'tinyagent-report-'));
  full = await build(RESULTS, 'full');
});
afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Builds the page from `resultsDir` into the temporary folder (never into the repository's results/). */
async function build(resultsDir: string, name: string) {
  return buildReportPage({
    resultsDir,
    outFile: join(work, name, 'index.html'),
    reproductionFile: join(ROOT, 'docs', 'REPRODUCTION.md'),
    studiesDir: join(work, name, 'studies'),
  });
}

/** Opens a page from disk and waits until its script has drawn every figure; records every request it makes. */
async function open(file: string): Promise<{ page: Page; problems: PageProblems; requests: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 800 });
  const problems = watchPage(page);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForFunction(() => document.body.dataset['rendered'] !== undefined, { timeout: 60_000 });
  return { page, problems, requests };
}

/** Per figure of the page: its spec id and how many mark items vega drew in it (data marks, not axes). */
function marksPerFigure(page: Page) {
  return page.$$eval('.view[data-spec]', (views) =>
    views.map((view) => ({
      spec: (view as HTMLElement).dataset['spec'],
      marks: view.querySelectorAll('svg .role-mark > *').length,
    })),
  );
}

describe('report page HTML', () => {
  it('escapes strings and closes no script element from inside a JSON value', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
    const script = jsonScript('s', { task: HOSTILE });
    expect(script.match(/<\/script/g)).toHaveLength(1);
    expect(JSON.parse(script.replace(/^<script[^>]*>/, '').replace(/<\/script>$/, ''))).toEqual({
      task: HOSTILE,
    });
  });

  it('renders the Markdown of the results files: headings, tables with code, figure lines through the hook', () => {
    const html = markdownToHtml(
      [
        '# 17.9 title',
        '',
        '## A <b>',
        '',
        '| task | `op` |',
        '| --- | --- |',
        `| ${HOSTILE} | 1 |`,
        '',
        '![f](figures/f.svg)',
      ].join('\n'),
      { dropTitle: true, figure: (path) => `[figure ${path}]` },
    );
    expect(html).toBe(
      `<h3>A &#60;b&#62;</h3>\n<div class="table"><table><thead><tr><th>task</th><th><code>op</code></th></tr></thead><tbody><tr><td>${escapeHtml(HOSTILE)}</td><td>1</td></tr></tbody></table></div>\n[figure figures/f.svg]`,
    );
  });

  it('shows the provenance a results file records, and says what it does not record', () => {
    const html = provenance(
      {
        seed: 1,
        numbers: [
          {
            backend: 'wasm',
            harnessHash: 'abc',
            checkpoint: { path: 'runs/default/step-0', step: 0, checksum: 'ff' },
          },
          {
            backend: 'wasm',
            harnessHash: 'abc',
            checkpoint: { path: 'runs/default/step-0', step: 0, checksum: 'ff' },
          },
        ],
      },
      'x.json',
      undefined,
    );
    expect(html).toContain('<th>backend</th><td>wasm</td>');
    expect(html).toContain('<th>harness hashes</th><td>abc</td>');
    expect(html).toContain('<th>runs/default/step-0 (step 0)</th><td>ff</td>');
    expect(html).toContain('<th>generated</th><td>not recorded in x.json</td>');
    expect(provenance({ seed: 0, numbers: {} }, '17.2.json', true)).toContain(
      '<th>backend</th><td>not recorded in 17.2.json</td>',
    );
  });
});

describe('report page', () => {
  it('draws every figure of the committed results with marks, with no console error and no request but the file', async () => {
    const built = full;
    const { page, problems, requests } = await open(built.outFile);
    const rendered = await page.evaluate(() => ({
      count: Number(document.body.dataset['rendered']),
      ms: (window as unknown as { reportRendered: number }).reportRendered,
    }));
    const figures = await marksPerFigure(page);
    expect(figures.length).toBe(built.figures);
    expect(built.figures).toBeGreaterThan(0);
    expect(built.missingSpecs).toEqual([]);
    expect(rendered.count).toBe(built.figures);
    expect(figures.filter(({ marks }) => marks === 0)).toEqual([]);
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    expect(requests).toEqual([pathToFileURL(built.outFile).href]);
    // Measured, not asserted: the time from navigation to the last figure drawn.
    const line = `report page: ${built.figures} figures drawn ${rendered.ms.toFixed(0)} ms after navigation (${(built.bytes / 1e6).toFixed(1)} MB)`;
    process.stdout.write(`${line}; screenshots in ${screenshotDir}\n`);
    writeFileSync(join(screenshotDir, 'report-load-time.txt'), `${line}\n`);
    await page.screenshot({ path: join(screenshotDir, 'report-full.png'), fullPage: true });
    await page.close();
  });

  it('links every book-beside-ours row to a section of the page, and a figure tooltip shows its values', async () => {
    const { page } = await open(full.outFile);
    const targets = await page.$$eval('#book a[href^="#sec-"]', (links) =>
      links.map((link) => link.getAttribute('href')!.slice(1)),
    );
    expect(targets.length).toBeGreaterThan(9);
    const missing = await page.evaluate(
      (ids) => ids.filter((id) => document.getElementById(id) === null),
      [...new Set(targets)],
    );
    expect(missing).toEqual([]);
    const point = await page.$('[id="sec-17.5"] .view .mark-symbol path');
    expect(point).not.toBeNull();
    await point!.hover();
    const tooltip = await page.$eval('#tooltip', (element) => ({
      hidden: (element as HTMLElement).hidden,
      text: (element as HTMLElement).innerText,
    }));
    expect(tooltip.hidden).toBe(false);
    expect(tooltip.text).toMatch(/interval low: \d\.\d{3}/);
    await page.screenshot({ path: join(screenshotDir, 'report-tooltip.png') });
    await page.close();
  });

  it('renders a hostile string from a results file as text, never as markup, and says what has not run', async () => {
    const copy = join(work, 'hostile-results');
    cpSync(RESULTS, copy, {
      recursive: true,
      filter: (source) => !source.includes(join('results', 'report')),
    });
    const json = JSON.parse(readFileSync(join(copy, '17.1.json'), 'utf8'));
    json.title = HOSTILE;
    json.numbers[0].backend = HOSTILE;
    writeFileSync(join(copy, '17.1.json'), JSON.stringify(json));
    const md = readFileSync(join(copy, '17.1.md'), 'utf8');
    writeFileSync(join(copy, '17.1.md'), md.replaceAll('speed', HOSTILE));
    const specPath = join(copy, 'figures', '17.1-coverage-vs-episodes.vl.json');
    writeFileSync(specPath, readFileSync(specPath, 'utf8').replaceAll('task-level', HOSTILE));
    rmSync(join(copy, 'ex-3.json'));
    // A planned study whose report has not been made yet.
    mkdirSync(join(work, 'hostile', 'studies', 'planned'), { recursive: true });
    writeFileSync(join(work, 'hostile', 'studies', 'planned', 'study.json'), '{}');
    const built = await build(copy, 'hostile');
    const { page, problems } = await open(built.outFile);
    const seen = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned,
      heading: document.querySelector('[id="sec-17.1"] h2')!.textContent,
      cells: [...document.querySelectorAll('[id="sec-17.1"] td')].map((cell) => cell.textContent),
      legend: [...document.querySelectorAll('[id="sec-17.3"] svg text')].map((node) => node.textContent),
      scripts: document.querySelectorAll('script:not([type])').length,
      notRun: document.querySelector('[id="sec-ex-3"]')!.textContent,
      study: document.querySelector('[id="sec-study-planned"]')!.textContent,
    }));
    expect(seen.pwned).toBeUndefined();
    expect(seen.heading).toBe(`17.1 ${HOSTILE}`);
    expect(seen.cells).toContain(HOSTILE);
    expect(seen.cells.filter((cell) => cell?.includes(HOSTILE)).length).toBeGreaterThan(1);
    expect(seen.legend).toContain(HOSTILE);
    // vega, vega-lite and the page's own script: nothing a results file wrote runs.
    expect(seen.scripts).toBe(3);
    expect(seen.notRun).toContain('Not run yet, run: npm run ex:3');
    expect(seen.study).toContain(
      'Not run yet, run: npx tinyagent study run studies/planned && npx tinyagent study report studies/planned',
    );
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.close();
  });

  it("a seed's tooltip in the step-80 seeds figure gives its interval, not its point twice", async () => {
    const { page } = await open(full.outFile);
    const texts: string[] = [];
    for (const container of await page.$$('[id="sec-seeds"] .view')) {
      const title = await container.evaluate((node) => node.textContent ?? '');
      if (!title.includes('Step-80 held-out pass@1 of each of')) continue;
      for (const point of (await container.$$('.mark-symbol path')).slice(0, 3)) {
        await point.hover();
        texts.push(await page.$eval('#tooltip', (element) => (element as HTMLElement).innerText));
      }
    }
    expect(texts.length).toBe(3);
    for (const text of texts) {
      const value = (name: string) => Number(new RegExp(`${name}: (\\d\\.\\d{3})`).exec(text)?.[1]);
      expect(text).toMatch(/seed \d+/);
      expect(value('interval low')).toBeLessThan(value('interval high'));
      expect(value('interval low')).toBeLessThanOrEqual(value('held-out pass@1'));
    }
    await page.close();
  });

  it('the book-beside-ours table shows the numbers of the results folder it was pointed at', async () => {
    const copy = join(work, 'changed-results');
    cpSync(RESULTS, copy, {
      recursive: true,
      filter: (source) => !source.includes(join('results', 'report')),
    });
    const json = JSON.parse(readFileSync(join(copy, '17.1.json'), 'utf8'));
    expect(json.numbers[1].passAt1.toFixed(3)).toBe('0.884');
    json.numbers[1].passAt1 = 0.777;
    writeFileSync(join(copy, '17.1.json'), JSON.stringify(json));
    const built = await build(copy, 'changed');
    const oursOf = async (file: string) => {
      const { page } = await open(file);
      const row = await page.evaluate(() => {
        const table = document.querySelector('#book-17\\.1 + .table table')!;
        const header = [...table.querySelectorAll('th')].map((cell) => cell.textContent);
        const cells = [...table.querySelectorAll('tbody tr')]
          .map((tr) => [...tr.querySelectorAll('td')].map((cell) => cell.textContent))
          .find((cells) => cells[1] === 'trained agent pass@1 (step 80)')!;
        return {
          ours: cells[header.indexOf('ours')],
          note: document.querySelector('#book > p.missing')?.textContent,
        };
      });
      await page.close();
      return row;
    };
    expect(await oursOf(full.outFile)).toEqual({ ours: '0.884', note: undefined });
    const changed = await oursOf(built.outFile);
    expect(changed.ours).toBe('0.777');
    expect(changed.note).toContain(`read from ${copy}`);
  });

  it('refuses a bad flag (exit 2) and a missing results folder (exit 1) in one line', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'experiments/report-page.ts', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
      });
    const bad = run(['--bogus']);
    expect([bad.status, bad.stderr.trim()]).toEqual([
      2,
      "report: Unknown option '--bogus' (options: --results DIR, --out FILE, --aggregate DIR)",
    ]);
    const missing = run(['--results', join(work, 'nowhere')]);
    expect([missing.status, missing.stderr.trim()]).toEqual([
      1,
      `report: ${join(work, 'nowhere')}: no such results folder`,
    ]);
  });
});
