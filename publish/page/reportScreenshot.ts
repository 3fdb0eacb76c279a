/**
 * The README's screenshot of the report page: one figure of a section, drawn by the page in
 * Debian's Chromium (lib/browser.ts), with a tooltip showing, and the page's load time.
 *
 * Command: npm run report && npm run report:screenshot [-- --page FILE --section ID --out FILE]
 * Output: docs/report.png (1000 px wide, a crop around the figure) and on the terminal the time
 *   from navigation to the last figure drawn.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../../lib/atomic.ts';
import { InputError } from '../../lib/errors.ts';
import { startBrowser, watchPage } from '../../lib/browser.ts';
import { isMain, parseScriptFlags, runScript } from '../../lib/script.ts';
import { ROOT } from '../../lib/paths.ts';

interface ScreenshotOptions {
  page: string;
  /** The section whose first figure is shown, e.g. sec-17.5 (Figure 17.2). */
  section: string;
  out: string;
}

const WIDTH = 1000;

export async function main({ page: file, section, out }: ScreenshotOptions) {
  if (!existsSync(file)) throw new InputError(`${file} is missing: run npm run report first`);
  const { browser, screenshotDir } = await startBrowser();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: WIDTH, height: 800 });
    const problems = watchPage(page);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.dataset['rendered'] !== undefined, { timeout: 60_000 });
    const loadMs = await page.evaluate(
      () => (window as unknown as { reportRendered: number }).reportRendered,
    );
    const figure = await page.$(`[id="${section}"] figure`);
    if (figure === null) throw new InputError(`${file} has no figure in section ${section}`);
    await figure.scrollIntoView();
    // Hover the middle point of the figure so that the screenshot shows a tooltip.
    const points = await figure.$$('.role-mark path');
    await points[Math.floor(points.length / 2)]?.hover();
    // The box is in viewport coordinates, the clip in the document's.
    const box = (await figure.boundingBox())!;
    const top = box.y + (await page.evaluate(() => window.scrollY));
    const png = await page.screenshot({
      clip: { x: 0, y: Math.max(0, top - 12), width: WIDTH, height: box.height + 24 },
      // Within the viewport: a capture beyond it resizes the page, and the tooltip goes with the mouse.
      captureBeyondViewport: false,
    });
    if (problems.errors.length > 0 || problems.failedRequests.length > 0)
      throw new InputError(
        `the page reported problems: ${[...problems.errors, ...problems.failedRequests].join('; ')}`,
      );
    writeFileAtomic(out, png);
    return { out, bytes: png.byteLength, loadMs };
  } finally {
    await browser.close();
    rmSync(screenshotDir, { recursive: true, force: true });
  }
}

function parseScreenshotOptions(argv: string[]): ScreenshotOptions {
  const values = parseScriptFlags(
    argv,
    { page: { type: 'string' }, section: { type: 'string' }, out: { type: 'string' } },
    '--page FILE, --section ID, --out FILE',
  );
  return {
    page: resolve(values.page ?? join(ROOT, 'results', 'report', 'index.html')),
    section: values.section ?? 'sec-17.5',
    out: resolve(values.out ?? join(ROOT, 'docs', 'report.png')),
  };
}

if (isMain(import.meta.url))
  await runScript('report:screenshot', async () => {
    const { out, bytes, loadMs } = await main(parseScreenshotOptions(process.argv.slice(2)));
    process.stdout.write(
      `wrote ${out} (${(bytes / 1000).toFixed(0)} kB); every figure drawn ${loadMs.toFixed(0)} ms after navigation\n`,
    );
  });
