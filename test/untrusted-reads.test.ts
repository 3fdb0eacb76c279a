import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hostAllowed, servePage, type ViewerServer } from '../cli/view/page.ts';
import { fileSite, folderLogs, folderSite, readServed } from '../cli/view/site.ts';
import { readResults } from '../eval/io/index.ts';
import { readRegularFile } from '../lib/files.ts';

// Every file we did not write is opened one way (lib/files.ts openRegularFile): a symbolic link,
// a FIFO, a device, a folder or a file over its size bound is refused in one line naming the
// path, before anything is read. Whatever could hang (a FIFO, a device) runs in a child that is
// killed after a minute, so that a hang fails the test instead of blocking it.

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin', 'tinyagent.js');
const work = mkdtempSync(join(tmpdir(), 'tinyagent-untrusted-reads-'));
const SECRET = 'SECRET-9b2e';
const servers: ViewerServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  rmSync(work, { recursive: true, force: true });
});

const KILL_AFTER_MS = 60_000;
const TEST_TIMEOUT_MS = KILL_AFTER_MS + 30_000;

/** Runs `node ARGS` in the checkout without blocking the worker; killed after KILL_AFTER_MS (status null). */
function node(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT });
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Runs an ES module's text in a child (tsx loaded; `args` are process.argv[1...]). */
const script = (text: string, args: string[] = []) =>
  node(['--import', 'tsx', '--input-type=module', '-e', text, ...args]);

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

/** A results folder whose 17.2 ran: its JSON and its Markdown, no figures. */
function resultsFolder(name: string): string {
  const dir = join(work, name, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '17.2.json'), `${JSON.stringify({ section: '17.2', title: 'pass@k', seed: 0 })}\n`);
  writeFileSync(join(dir, '17.2.md'), '# 17.2 pass@k\n\nMeasured.\n');
  return dir;
}

/** `npm run report` on a results folder (and --aggregate folders): status, stderr, the page if written. */
async function report(resultsDir: string, aggregate: string[] = []) {
  const outFile = join(resultsDir, '..', 'page', 'index.html');
  const run = await node([
    '--import',
    'tsx',
    join(ROOT, 'publish', 'page', 'reportPage.ts'),
    '--results',
    resultsDir,
    '--out',
    outFile,
    ...aggregate.flatMap((dir) => ['--aggregate', dir]),
  ]);
  let page: string | undefined;
  try {
    page = readFileSync(outFile, 'utf8');
  } catch {
    page = undefined;
  }
  return { ...run, page };
}

writeFileSync(join(work, 'secret.md'), `# ${SECRET}\n`);

describe('the report page opens only regular files', () => {
  it.each([
    ['17.2.md is a FIFO', '17.2.md', (path: string) => mkfifo(path), 'is a FIFO, not a regular file'],
    ['17.2.json is a FIFO', '17.2.json', (path: string) => mkfifo(path), 'is a FIFO, not a regular file'],
    [
      '17.2.json is a link to /dev/zero',
      '17.2.json',
      (path: string) => symlinkSync('/dev/zero', path),
      'is a symbolic link, not a regular file',
    ],
    [
      '17.2.md is a link to a Markdown file',
      '17.2.md',
      (path: string) => symlinkSync(join(work, 'secret.md'), path),
      'is a symbolic link, not a regular file',
    ],
    [
      'seeds.json (read for the book table) is a FIFO',
      'seeds.json',
      (path: string) => mkfifo(path),
      'is a FIFO, not a regular file',
    ],
  ])(
    '%s: refused in one line naming it, exit 1, no page',
    async (name, file, make, why) => {
      const dir = resultsFolder(name.replace(/\W+/g, '-'));
      const path = join(dir, file);
      rmSync(path, { force: true });
      make(path);
      const { status, stderr, page } = await report(dir);
      expect(stderr).toBe(`report: '${path}' ${why}\n`);
      expect(status).toBe(1);
      expect(page).toBeUndefined();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a results JSON nested 100,000 deep is refused in one line, not a stack overflow',
    async () => {
      const dir = resultsFolder('deep');
      const path = join(dir, '17.2.json');
      writeFileSync(path, `{"section":"17.2","numbers":${'['.repeat(100_000)}${']'.repeat(100_000)}}\n`);
      const { status, stderr, page } = await report(dir);
      expect(stderr).toMatch(
        new RegExp(
          `^report: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: arrays and objects nested more than 1,000 deep`,
        ),
      );
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(status).toBe(1);
      expect(page).toBeUndefined();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "an aggregate's Markdown that is a FIFO is refused",
    async () => {
      const dir = resultsFolder('aggregate');
      const aggregate = join(work, 'aggregate', 'out');
      mkdirSync(aggregate);
      writeFileSync(join(aggregate, 'aggregate.json'), '{"title":"scores"}\n');
      mkfifo(join(aggregate, 'aggregate.md'));
      const { status, stderr, page } = await report(dir, [aggregate]);
      expect(stderr).toBe(`report: '${join(aggregate, 'aggregate.md')}' is a FIFO, not a regular file\n`);
      expect(status).toBe(1);
      expect(page).toBeUndefined();
    },
    TEST_TIMEOUT_MS,
  );

  it.each([
    ['a FIFO', (path: string) => mkfifo(path), 'is a FIFO, not a regular file'],
    [
      'a link to a Markdown file',
      (path: string) => symlinkSync(join(work, 'secret.md'), path),
      'is a symbolic link, not a regular file',
    ],
  ])(
    "a study's study.md that is %s is refused",
    async (name, make, why) => {
      const studies = join(work, `studies-${name.replace(/\W+/g, '-')}`);
      const results = join(studies, 's', 'results');
      mkdirSync(results, { recursive: true });
      writeFileSync(join(studies, 's', 'study.json'), '{}\n');
      writeFileSync(join(results, 'study.json'), '{"title":"seeds"}\n');
      make(join(results, 'study.md'));
      const options = {
        resultsDir: resultsFolder(`study-${name.replace(/\W+/g, '-')}`),
        outFile: join(studies, 'page', 'index.html'),
        reproductionFile: join(ROOT, 'docs', 'REPRODUCTION.md'),
        studiesDir: studies,
      };
      const { status, stdout, stderr } = await script(
        `const { main } = await import(process.argv[1]);
        try { await main(JSON.parse(process.argv[2])); console.log('written'); }
        catch (error) { console.log(error.message); process.exitCode = 1; }`,
        [pathToFileURL(join(ROOT, 'publish', 'page', 'reportPage.ts')).href, JSON.stringify(options)],
      );
      expect(stderr).toBe('');
      expect(stdout).toBe(`'${join(results, 'study.md')}' ${why}\n`);
      expect(status).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('lib/files.ts readRegularFile: one opener for every file we did not write', () => {
  it(
    'refuses a FIFO, a link (to /dev/zero, to a regular file), a device, a folder and a file over its bound, naming the path',
    async () => {
      const dir = join(work, 'lib');
      mkdirSync(dir);
      const file = join(dir, 'nine.txt');
      writeFileSync(file, '123456789');
      mkfifo(join(dir, 'fifo'));
      symlinkSync('/dev/zero', join(dir, 'zero'));
      symlinkSync(file, join(dir, 'link'));
      const cases: Array<[string, number | null, string]> = [
        [join(dir, 'fifo'), null, `--config: '${join(dir, 'fifo')}' is a FIFO, not a regular file`],
        [join(dir, 'zero'), null, `--config: '${join(dir, 'zero')}' is a symbolic link, not a regular file`],
        [join(dir, 'link'), null, `--config: '${join(dir, 'link')}' is a symbolic link, not a regular file`],
        ['/dev/zero', null, `--config: '/dev/zero' is a device, not a regular file`],
        [dir, null, `--config: '${dir}' is a folder, not a regular file`],
        [join(dir, 'none'), null, `--config: no such file '${join(dir, 'none')}'`],
        [file, 4, `--config: '${file}' is 9 bytes, more than the 4 such a file may hold`],
        [file, 9, '123456789'],
      ];
      const { status, stdout, stderr } = await script(
        `const { readRegularFile } = await import(process.argv[1]);
        for (const [path, maxBytes] of JSON.parse(process.argv[2])) {
          try { console.log(readRegularFile(path, '--config', maxBytes === null ? {} : { maxBytes })); }
          catch (error) { console.log(error.message); }
        }`,
        [
          pathToFileURL(join(ROOT, 'lib', 'files.ts')).href,
          JSON.stringify(cases.map(([path, max]) => [path, max])),
        ],
      );
      expect(stderr).toBe('');
      expect(status).toBe(0);
      expect(stdout.trimEnd().split('\n')).toEqual(cases.map(([, , line]) => line));
    },
    TEST_TIMEOUT_MS,
  );

  it('reads a regular file whole', () => {
    const path = join(work, 'plain.txt');
    writeFileSync(path, 'x'.repeat(3_000_000));
    expect(readRegularFile(path, 'plain')).toHaveLength(3_000_000);
  });
});

/** A result file of rows with no harness: `a.jsonl` with the given tasks. */
function rowsFile(path: string, task: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(
    path,
    [0, 1].map((sample) => JSON.stringify({ task, sample, passed: sample === 0 })).join('\n') + '\n',
  );
}

/** A raw request to a served page: its status, its Allow header and its body. */
function request(
  url: string,
  path: string,
  { method = 'GET', host }: { method?: string; host?: string } = {},
) {
  const { port } = new URL(url);
  return new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method, headers: host === undefined ? {} : { host } },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += String(chunk)));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, allow: response.headers.allow, body }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('tinyagent view opens only regular files', () => {
  it(
    'a sidecar FILE.harness.json that is a symbolic link is refused, not followed',
    async () => {
      const path = join(work, 'sidecar', 'a.jsonl');
      rowsFile(path, 'add');
      writeFileSync(join(work, 'secret-harness.json'), `${JSON.stringify({ model: SECRET })}\n`);
      symlinkSync(join(work, 'secret-harness.json'), `${path}.harness.json`);
      const { status, stdout, stderr } = await node([
        BIN,
        'view',
        path,
        '--out',
        join(work, 'sidecar', 'page'),
      ]);
      expect(stderr).toBe(`tinyagent view: ${path}.harness.json: is a symbolic link, not a regular file\n`);
      expect(stdout).toBe('');
      expect(status).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a result file that is a symbolic link is refused, one named on the command line too',
    async () => {
      const path = join(work, 'linked', 'a.jsonl');
      rowsFile(join(work, 'linked', 'real.jsonl'), 'add');
      symlinkSync(join(work, 'linked', 'real.jsonl'), path);
      const { status, stderr } = await node([BIN, 'metrics', path]);
      expect(stderr).toBe(`tinyagent metrics: ${path}: is a symbolic link, not a regular file\n`);
      expect(status).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it("a folder's file replaced by a link after it was listed is refused when opened (422), not followed", async () => {
    const dir = join(work, 'folder');
    rowsFile(join(dir, 'a.jsonl'), 'add');
    rowsFile(join(work, 'elsewhere', 'secret.jsonl'), SECRET);
    const listed = await folderLogs(dir, {});
    expect(listed.paths).toEqual([join(dir, 'a.jsonl')]);
    const site = folderSite(listed, {});
    const server = await servePage(site.files, 0, site.dynamic);
    servers.push(server);
    rmSync(join(dir, 'a.jsonl'));
    symlinkSync(join(work, 'elsewhere', 'secret.jsonl'), join(dir, 'a.jsonl'));
    const answer = await request(server.url, '/log/0/data.js');
    expect(answer.status).toBe(422);
    expect(answer.body).toBe(`${join(dir, 'a.jsonl')}: is a symbolic link, not a regular file\n`);
    expect(answer.body).not.toContain(SECRET);
  });
});

describe('tinyagent view answers a browser on port 80 and refuses other methods with 405', () => {
  it('accepts a Host without its port only when the port is 80 (a browser leaves the default out)', async () => {
    expect(hostAllowed('127.0.0.1', 80)).toBe(true);
    expect(hostAllowed('localhost', 80)).toBe(true);
    expect(hostAllowed('127.0.0.1:80', 80)).toBe(true);
    expect(hostAllowed('127.0.0.1', 7474)).toBe(false);
    expect(hostAllowed('127.0.0.1:7474', 7474)).toBe(true);
    expect(hostAllowed('attacker.example', 80)).toBe(false);
    expect(hostAllowed('attacker.example:80', 80)).toBe(false);
    expect(hostAllowed(undefined, 80)).toBe(false);
    const path = join(work, 'host', 'a.jsonl');
    rowsFile(path, 'add');
    const site = fileSite(await readServed([path], async () => [await readResults(path)]));
    const server = await servePage(site.files, 0, site.dynamic);
    servers.push(server);
    const { port } = new URL(server.url);
    expect((await request(server.url, '/', { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await request(server.url, '/', { host: '127.0.0.1' })).status).toBe(404);
  });

  it('answers 405 with Allow: GET, HEAD to a POST, PUT or DELETE on any path', async () => {
    const path = join(work, 'methods', 'a.jsonl');
    rowsFile(path, 'add');
    const site = fileSite(await readServed([path], async () => [await readResults(path)]));
    const server = await servePage(site.files, 0, site.dynamic);
    servers.push(server);
    for (const method of ['POST', 'PUT', 'DELETE'])
      for (const target of ['/', '/data.js', '/sample?file=0&task=add&sample=0', '/log/0/', '/nothing']) {
        const answer = await request(server.url, target, { method });
        expect([answer.status, answer.allow], `${method} ${target}`).toEqual([405, 'GET, HEAD']);
      }
    expect((await request(server.url, '/nothing')).status).toBe(404);
    expect((await request(server.url, '/', { method: 'HEAD' })).status).toBe(200);
  });
});
