/**
 * The README's screenshot of the episode viewer (docs/viewer.png), and the page's load time (from
 * navigation to laid out, the median of five loads):
 *
 *   npx tinyagent eval --checkpoint runs/default/step-80 --out /tmp/e.json --transcripts
 *   node --import tsx bench/viewer-screenshot.ts /tmp/e.json docs/viewer.png
 *
 * The page `tinyagent view` writes, in Chromium at 1000 px wide, on the first episode that reads,
 * edits, tests and submits (else the longest).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startBrowser } from '../lib/browser.ts';

interface Row {
  task: string;
  passed: boolean;
  transcript?: Array<{ action: string[] }>;
}

/** The hash that opens the episode to show: `task=NAME&episode=T.E` (T: task index, E: its row). */
function episodeHash(rows: readonly Row[]): string {
  const tasks = [...new Set(rows.map((row) => row.task))];
  const tools = (row: Row) => new Set((row.transcript ?? []).map(({ action }) => action[0]));
  const full = rows.find(
    (row) => row.passed && ['read', 'edit', 'test', 'submit'].every((tool) => tools(row).has(tool)),
  );
  const shown =
    full ??
    rows.reduce((best, row) => ((row.transcript?.length ?? 0) > (best.transcript?.length ?? 0) ? row : best));
  const ofTask = rows.filter((row) => row.task === shown.task);
  const episode = `${tasks.indexOf(shown.task)}.${ofTask.indexOf(shown)}`;
  return new URLSearchParams({ task: shown.task, episode }).toString();
}

async function main(): Promise<void> {
  const [file, png] = process.argv.slice(2);
  if (file === undefined || png === undefined) {
    process.stderr.write('usage: node --import tsx bench/viewer-screenshot.ts RESULT_FILE OUT.png\n');
    process.exit(2);
  }
  const rows = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as Row);
  const dir = mkdtempSync(join(tmpdir(), 'tinyagent-viewer-shot-'));
  const { browser, screenshotDir } = await startBrowser();
  try {
    const bin = fileURLToPath(new URL('../bin/tinyagent.js', import.meta.url));
    execFileSync(process.execPath, [bin, 'view', file, '--out', dir], { stdio: 'inherit' });
    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 640 });
    const url = `${pathToFileURL(join(dir, 'index.html')).href}#${episodeHash(rows)}`;
    const loads: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      await page.goto('about:blank'); // else the same URL again is only a jump within the page
      const started = performance.now();
      await page.goto(url, { waitUntil: 'load' });
      await page.waitForSelector('body[data-ready="1"]');
      loads.push(performance.now() - started);
    }
    await page.screenshot({ path: png as `${string}.png` });
    const median = loads.sort((a, b) => a - b)[2]!;
    process.stdout.write(
      `${png}: ${statSync(png).size} bytes; ${rows.length} rows, the page (data ${statSync(join(dir, 'data.js')).size} bytes) loads in ${median.toFixed(0)} ms (median of 5)\n`,
    );
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(screenshotDir, { recursive: true, force: true });
  }
}

await main();
