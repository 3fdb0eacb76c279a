import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { main as buildReportPage, provenance } from '../publish/page/reportPage.ts';
import { bandPanelsSvg } from '../publish/figures.ts';
import { chapterAnswers } from '../publish/page/answers.ts';
import { escapeHtml, jsonScript, markdownToHtml } from '../publish/html.ts';
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

/** A copy of the committed results (without a generated page) to edit, in the temporary folder. */
function copyOfResults(name: string): string {
  const copy = join(work, name);
  cpSync(RESULTS, copy, { recursive: true, filter: (source) => !source.includes(join('results', 'report')) });
  return copy;
}

/** A results JSON of a folder, edited in place. */
function editJson(file: string, edit: (json: any) => void) {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  edit(json);
  writeFileSync(file, JSON.stringify(json));
}

/** The header's answers as the page shows them: each one's text and the sections it links to. */
function answersOf(page: Page) {
  return page.$$eval('header .answers > li', (items) =>
    items.map((item) => ({
      text: (item as HTMLElement).innerText,
      links: [...item.querySelectorAll('a')].map((link) => link.getAttribute('href')!.slice(1)),
    })),
  );
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

describe('the answers at the top of the page', () => {
  const source = (name: string, json: unknown) => ({
    name: `results/${name}.json`,
    json,
    command: `npm run exp:${name}`,
    section: { id: `sec-${name}`, label: name },
  });
  const committed = (name: string) => JSON.parse(readFileSync(join(RESULTS, `${name}.json`), 'utf8'));

  it('says which file or field an answer lacks and what to run, and answers the others', () => {
    const passk = committed('17.7');
    delete passk.numbers.step80BandAtLargeK;
    const html = chapterAnswers({
      '17.4': source('17.4', committed('17.4')),
      '17.7': source('17.7', passk),
      seeds: source('seeds', undefined),
      'ex-7': source('ex-7', committed('ex-7')),
    });
    const items = html.split('<li>').slice(1);
    expect(items).toHaveLength(3);
    expect(items[0]).toContain('Not answered: results/17.7.json does not record what this answer reads');
    expect(items[0]).toContain('numbers.step80BandAtLargeK');
    expect(items[0]).toContain('rerun: npm run exp:17.7');
    expect(items[1]).toContain('Not answered: results/seeds.json is missing (run: npm run exp:seeds)');
    expect(items[2]).not.toContain('Not answered');
    expect(items[2]).toContain('href="#sec-17.4"');
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
    expect(built.figureProblems).toEqual([]);
    expect(rendered.count).toBe(built.figures);
    expect(await page.evaluate(() => document.body.dataset['notDrawn'])).toBe('0');
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
    const copy = copyOfResults('hostile-results');
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
    const copy = copyOfResults('changed-results');
    const json = JSON.parse(readFileSync(join(copy, '17.1.json'), 'utf8'));
    expect(json.numbers[1].passAt1.toFixed(3)).toBe('0.834');
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
    expect(await oursOf(full.outFile)).toEqual({ ours: '0.834', note: undefined });
    const changed = await oursOf(built.outFile);
    expect(changed.ours).toBe('0.777');
    expect(changed.note).toContain(`read from ${copy}`);
  });

  it('answers the three questions first, from the results, each with its interval and links; the book comes after the results', async () => {
    const { page } = await open(full.outFile);
    const answers = await answersOf(page);
    const f3 = (value: number) => value.toFixed(3);
    const seeds = JSON.parse(readFileSync(join(RESULTS, 'seeds.json'), 'utf8')).numbers;
    const comparing = JSON.parse(readFileSync(join(RESULTS, '17.4.json'), 'utf8')).numbers;
    expect(answers.map(({ text }) => text.split('?')[0])).toEqual([
      'Does RL raise pass@k at large k, or only sharpen',
      'How many seeds',
      'Is A better than B',
    ]);
    for (const { text } of answers) expect(text).not.toContain('Not answered');
    const [passk, howMany, better] = answers.map(({ text }) => text);
    const { overtakesBy32, endsBelowBase } = seeds.claims;
    for (const claim of [overtakesBy32, endsBelowBase])
      expect(passk).toContain(
        `${claim.holds} of ${claim.seeds} (two-stage 95% [${f3(claim.interval.low)}, ${f3(claim.interval.high)}]; ${claim.standing}`,
      );
    expect(passk).toMatch(
      /at k = \d+: \d\.\d{3}, task-level 95% \[\d\.\d{3}, \d\.\d{3}\], against \d\.\d{3}/,
    );
    // Seeds per recipe, 2 ((z_0.975 + z_0.8) sd / delta)^2 rounded up, from seeds.json's SD and its
    // chi-square interval (0.0853 [0.0630, 0.1320]): scipy.stats.norm.ppf gives 45.65, 24.91, 109.35
    // at 5 points and 285.33 at 2.
    expect(howMany).toContain('46 per recipe to tell two recipes 5 points apart at step 80 (25 to 110');
    expect(howMany).toContain('286 for 2 points');
    const sd = seeds.step80.sdInterval;
    expect(howMany).toContain(`SD ${f3(sd.estimate)} (chi-square 95% [${f3(sd.low)}, ${f3(sd.high)}])`);
    expect(howMany).toContain(
      `gave ${[...comparing.power]
        .sort((a: { delta: number }, b: { delta: number }) => b.delta - a.delta)
        .map((row: { seedsPerGroupStep80: number }) => row.seedsPerGroupStep80)
        .join(' and ')}`,
    );
    const { paired } = comparing;
    const sign = (value: number) => `${value < 0 ? '' : '+'}${f3(value)}`;
    // 17.4's step 80 against step 60 holds 0; (z_0.975 + z_0.8) x its paired SE 0.082259 = 0.23045 (scipy).
    expect(better).toContain(
      `is not shown better or worse than its step 60: ${sign(paired.difference)} (paired task-level 95% [${sign(paired.low)}, ${sign(paired.high)}], which holds 0); the paired design would detect 0.230 or more`,
    );
    // ex-7's claim is 0.77 SE: not shown; (z_0.975 + z_0.8) x its SE 0.03123 = 0.0875 (scipy).
    expect(better).toContain('is not shown');
    expect(better).toContain('that design detects only 0.087 or more');
    expect(answers.map(({ links }) => links)).toEqual([
      ['sec-17.7', 'sec-seeds'],
      ['sec-seeds', 'sec-17.4'],
      ['sec-17.4', 'sec-ex-7'],
    ]);
    const order = await page.evaluate(() => ({
      sections: [...document.querySelectorAll('main > section')].map((section) => section.id),
      toc: [...document.querySelectorAll('nav a')].map((link) => link.getAttribute('href')),
      answersBeforeMain: document.querySelector('header .answers') !== null,
    }));
    expect(order.answersBeforeMain).toBe(true);
    expect(order.sections.at(-1)).toBe('book');
    expect(order.sections.indexOf('sec-17.1')).toBe(0);
    expect(order.toc.at(-1)).toBe('#book');
    await page.close();
  });

  it('verdict tables have words for headers, not identifiers, and no table is wider than its box', async () => {
    const { page } = await open(full.outFile);
    const seen = await page.evaluate(() => ({
      headers: [...document.querySelectorAll('main th')].map((cell) => cell.textContent ?? ''),
      verdictTitles: [...document.querySelectorAll('[id="sec-seeds"] th[title]')].map((cell) =>
        cell.getAttribute('title'),
      ),
      clipped: [...document.querySelectorAll('.table')]
        .filter((box) => box.scrollWidth > box.clientWidth)
        .map((box) => `${box.closest('section')?.id}: ${box.scrollWidth} > ${box.clientWidth}`),
    }));
    // A camelCase identifier such as step20AtOrAboveBase.
    expect(seen.headers.filter((header) => /^[a-z]+[A-Z0-9]\w*$/.test(header))).toEqual([]);
    expect(seen.headers).toContain('17.7 a task ends below base (headline)');
    expect(seen.verdictTitles).toHaveLength(8);
    expect(seen.verdictTitles).toContain(
      '17.7: the base agent overtakes step 80 at some k <= 32 (mean pass@k over held-out tasks)',
    );
    expect(seen.clipped).toEqual([]);
    await page.close();
  });

  it('a negative verdict says what the design could have detected', async () => {
    const copy = copyOfResults('negative-results');
    editJson(join(copy, '17.4.json'), (json) => {
      Object.assign(json.numbers.paired, { difference: 0.04, low: -0.01, high: 0.09, pairedSE: 0.059875 });
    });
    editJson(join(copy, 'seeds.json'), (json) => {
      Object.assign(json.numbers.claims.overtakesBy32, {
        holds: 0,
        interval: { low: 0, high: 0.206, method: 'exact over seeds' },
        standing: 'not detected',
        detection: 0.5,
      });
    });
    const built = await build(copy, 'negative');
    const { page } = await open(built.outFile);
    const [passk, , better] = (await answersOf(page)).map(({ text }) => text);
    // A claim not shown says what its test could have detected at the book's effect.
    expect(passk).toContain(
      "0 of 16 (two-stage 95% [0.000, 0.206]; not detected: power 0.500 at the book's effect)",
    );
    // (z_0.975 + z_0.8) x the paired SE 0.059875 = 0.16775 (scipy.stats.norm.ppf).
    expect(better).toContain(
      'is not shown better or worse than its step 60: +0.040 (paired task-level 95% [-0.010, +0.090], which holds 0); the paired design would detect 0.168 or more (two-sided 5%, power 0.8)',
    );
    await page.close();
  });

  it('a difference shown says which way and by how much', async () => {
    const copy = copyOfResults('shown-results');
    editJson(join(copy, '17.4.json'), (json) => {
      Object.assign(json.numbers.paired, { difference: -0.05, low: -0.09, high: -0.01 });
    });
    const built = await build(copy, 'shown');
    const { page } = await open(built.outFile);
    const [, , better] = (await answersOf(page)).map(({ text }) => text);
    expect(better).toContain(
      'is worse than its step 60 by -0.050 (paired task-level 95% [-0.090, -0.010], which excludes 0)',
    );
    await page.close();
  });

  it('a figure with an empty panel, one laid out at an absurd size, one without data and one not JSON: a note each, and every section in reach', async () => {
    const copy = copyOfResults('broken-figures');
    const figures = join(copy, 'figures');
    // The right panel of 17.7's figure as publish/sections/17.7.ts writes it when no task narrows.
    // (publish/figures.ts refuses to draw such a panel now; a spec from elsewhere may still hold one.)
    const { spec: left } = await bandPanelsSvg([
      { title: 'left', xTitle: 'k', yTitle: 'pass@k', series: [{ name: 'a', points: [{ x: 1, y: 0.5 }] }] },
    ]);
    const emptyPanel = {
      ...((left.hconcat as Array<Record<string, unknown>>)[0] as Record<string, unknown>),
      title: 'No held-out task narrows in this run or its seeds',
      data: { values: [] },
    };
    editJson(join(figures, '17.3-passk.vl.json'), (spec) => {
      spec.hconcat[1] = emptyPanel;
    });
    // Data, but a legend with no entries and no title: vega's bounds are Number.MAX_VALUE.
    writeFileSync(
      join(figures, 'ex-1-variance-by-k.vl.json'),
      JSON.stringify({
        data: { values: [{ x: 1, y: 1, series: 'a' }] },
        mark: 'line',
        encoding: {
          x: { field: 'x', type: 'quantitative' },
          y: { field: 'y', type: 'quantitative' },
          color: { field: 'series', type: 'nominal', title: '', scale: { domain: [], range: [] } },
        },
      }),
    );
    writeFileSync(
      join(figures, 'ex-3-intervals.vl.json'),
      JSON.stringify({ data: { values: [] }, mark: 'point' }),
    );
    writeFileSync(join(figures, 'ex-4-entropy-vs-drop.vl.json'), '{"mark": "point",\n  x}');
    const built = await build(copy, 'broken-figures');
    expect(built.figureProblems).toEqual([
      `${join(figures, '17.3-passk.vl.json')}: panel "No held-out task narrows in this run or its seeds" holds no data; drawn without it`,
      `${join(figures, 'ex-3-intervals.vl.json')}: not drawn: no data in its spec`,
      `${join(figures, 'ex-4-entropy-vs-drop.vl.json')} is not a JSON file (not valid JSON at line 2, column 3): its figure is not drawn`,
    ]);
    expect(built.figures).toBe(full.figures - 2);
    const { page, problems } = await open(built.outFile);
    const seen = await page.evaluate(() => ({
      rendered: Number(document.body.dataset['rendered']),
      notDrawn: document.body.dataset['notDrawn'],
      heights: [...document.querySelectorAll('main > section')].map(
        (section) => [section.id, section.getBoundingClientRect().height] as const,
      ),
      bookTop: document.getElementById('book')!.getBoundingClientRect().top + window.scrollY,
      passk: document.querySelector('[id="sec-17.7"] figure')!.textContent,
      passkMarks: document.querySelectorAll('[id="sec-17.7"] figure svg .role-mark > *').length,
      ex1: document.querySelector('[id="sec-ex-1"] .view')!.textContent,
      ex3: document.querySelector('[id="sec-ex-3"] .missing')?.textContent,
      ex4: document.querySelector('[id="sec-ex-4"] .missing')?.textContent,
    }));
    expect(seen.rendered).toBe(built.figures - 1);
    expect(seen.notDrawn).toBe('1');
    expect(seen.heights.filter(([, height]) => !(height < 20_000))).toEqual([]);
    expect(seen.bookTop).toBeLessThan(200_000);
    expect(seen.passk).toContain(
      'the panel "No held-out task narrows in this run or its seeds" holds no data and is left out',
    );
    expect(seen.passkMarks).toBeGreaterThan(0);
    expect(seen.ex1).toContain('This figure is not drawn: vega lays it out');
    expect(seen.ex3).toContain('not drawn: its spec holds no data');
    expect(seen.ex4).toContain('is not drawn');
    // vega never wrote a non-finite attribute into the page (Chromium logs those as errors).
    expect(problems).toEqual({ errors: [], failedRequests: [] });
    await page.screenshot({ path: join(screenshotDir, 'report-broken-figures.png'), fullPage: true });
    await page.close();
  });

  it('refuses a bad flag (exit 2) and a missing results folder (exit 1) in one line', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'publish/page/reportPage.ts', ...args], {
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
