import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFilesAtomic } from '../../lib/atomic.ts';
import type { ViewerData } from './data.ts';

/** One file of the viewer: its name in the page's folder, content type and bytes. */
export interface PageFile {
  name: string;
  type: string;
  body: string;
  /** The HTTP status when served (200 unless set: a detail that could not be read is 422). */
  status?: number;
}

/** The page's static files, beside this module, and their content types. */
const STATIC = { 'index.html': 'text/html', 'viewer.css': 'text/css', 'viewer.js': 'text/javascript' };

/**
 * The data as a script, `data.js`, so that the page works from disk too (a page opened from a
 * file may not fetch another). The JSON goes in as a string literal and is parsed by JSON.parse:
 * an object literal would read a `__proto__` key from the file as the prototype, and a string
 * literal holds any text safely (JSON.stringify escapes quotes, backslashes and controls).
 */
export const dataFile = (data: ViewerData): PageFile => ({
  name: 'data.js',
  type: 'text/javascript; charset=utf-8',
  body: `globalThis.VIEWER_DATA = JSON.parse(${JSON.stringify(JSON.stringify(data))});\n`,
});

/** The page's static files (the same page lays out one file, two, or a folder's list). */
export const staticFiles = (): PageFile[] =>
  Object.entries(STATIC).map(([name, type]) => ({
    name,
    type: `${type}; charset=utf-8`,
    body: readFileSync(new URL(`./${name}`, import.meta.url), 'utf8'),
  }));

export const pageFiles = (data: ViewerData): PageFile[] => [...staticFiles(), dataFile(data)];

/** Writes the page's files into `dir` (every file atomically, all or none); returns the page's path. */
export function writePage(dir: string, files: readonly PageFile[]): string {
  writeFilesAtomic(files.map(({ name, body }) => ({ path: join(dir, name), content: body })));
  return join(dir, 'index.html');
}

/** An answer computed on request (a sample's detail, a log of a folder), or undefined: not found. */
export type DynamicAnswer = (path: string, query: URLSearchParams) => Promise<PageFile | undefined>;

/** The one address the viewer listens on: this machine only. */
const VIEWER_HOST = '127.0.0.1';

/** Sent with every answer: no script, style or request but the page's own, not framed, not sniffed. */
const HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export interface ViewerServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Whether a request's Host names the viewer: 127.0.0.1 or localhost with the port it listens on,
 * or without a port when that is 80, which a browser leaves out (RFC 9110, 7.2: a default port
 * may be omitted). Any other name is a page elsewhere that rebinds its name to 127.0.0.1.
 */
export function hostAllowed(host: string | undefined, port: number): boolean {
  const names = [VIEWER_HOST, 'localhost'];
  const allowed = names.map((name) => `${name}:${port}`).concat(port === 80 ? names : []);
  return host !== undefined && allowed.includes(host.toLowerCase());
}

/**
 * Serves the page on 127.0.0.1 (port 0: a free one). It answers only the page's own files, by
 * exact path (`/` is index.html), and what `dynamic` computes for a path (a sample's detail, by
 * the query's indices into what was read: never a path from the request), to GET and HEAD (any
 * other method is 405, with Allow); any other path is 404, whatever it spells (`/../x`,
 * `/%2e%2e/x`, a file beside them on disk), since nothing is ever looked up on disk by the
 * request. A request whose Host is not this address (`hostAllowed`) is refused (404) first.
 */
export function servePage(
  files: readonly PageFile[],
  port: number,
  dynamic?: DynamicAnswer,
): Promise<ViewerServer> {
  const byPath = new Map(files.map((file) => [`/${file.name}`, file]));
  const index = byPath.get('/index.html');
  if (index !== undefined) byPath.set('/', index);
  return new Promise((resolve, reject) => {
    const server = createServer(async (request, response) => {
      const [path = '', search = ''] = (request.url ?? '').split(/\?(.*)/s);
      const plain = (status: number, text: string, extra = {}) => {
        response.writeHead(status, { ...HEADERS, ...extra, 'Content-Type': 'text/plain; charset=utf-8' });
        response.end(text);
      };
      const notFound = () => plain(404, 'not found\n');
      if (!hostAllowed(request.headers.host, (server.address() as AddressInfo).port)) return notFound();
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return plain(405, 'method not allowed\n', { Allow: 'GET, HEAD' });
      let file = byPath.get(path);
      if (file === undefined && dynamic !== undefined)
        file = await dynamic(path, new URLSearchParams(search)).catch((error: unknown): PageFile => ({
          name: path,
          type: 'text/plain; charset=utf-8',
          body: `${(error as Error).message.split('\n')[0]}\n`,
          status: 422,
        }));
      if (file === undefined) return notFound();
      response.writeHead(file.status ?? 200, {
        ...HEADERS,
        'Content-Type': file.type,
        'Content-Length': Buffer.byteLength(file.body),
      });
      response.end(request.method === 'HEAD' ? undefined : file.body);
    });
    server.once('error', reject);
    server.listen(port, VIEWER_HOST, () => {
      server.off('error', reject);
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://${VIEWER_HOST}:${bound}/`,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
