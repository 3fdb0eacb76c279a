import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';

/** The Debian package of the browser (`npm test` installs it for its page tests). */
export const CHROMIUM_PACKAGE = 'chromium';
/** Where Debian's package puts the browser; `CHROMIUM_PATH` overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface PageProblems {
  /** console.error messages and uncaught page errors. */
  errors: string[];
  /** Requests that failed, or were answered with a status of 400 or more. */
  failedRequests: string[];
}

/**
 * Starts Debian's Chromium headless through puppeteer-core (a development dependency, loaded only
 * here). Not installed: one line naming the package. Screenshots go to `screenshotDir`, a temporary folder.
 */
export async function startBrowser(): Promise<{ browser: Browser; screenshotDir: string }> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: apt-get install -y ${CHROMIUM_PACKAGE}`);
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-extensions',
      '--disable-sync',
      '--no-first-run',
      '--metrics-recording-only',
    ],
  });
  return { browser, screenshotDir: mkdtempSync(join(tmpdir(), 'tinyagent-screens-')) };
}

/** Records every console error, page error and failed request of `page` from now on. */
export function watchPage(page: Page): PageProblems {
  const problems: PageProblems = { errors: [], failedRequests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') problems.errors.push(message.text());
  });
  page.on('pageerror', (error) => problems.errors.push(String(error)));
  page.on('requestfailed', (request) =>
    problems.failedRequests.push(`${request.url()}: ${request.failure()?.errorText ?? 'failed'}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) problems.failedRequests.push(`${response.url()}: ${response.status()}`);
  });
  return problems;
}
