import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  readResults,
  readSampleDetail,
  ResultFileError,
  type ReadOptions,
  type ResultFile,
} from '../../eval/io/index.ts';
import { fileError } from '../../eval/io/errors.ts';
import { streamBytes } from '../../eval/io/source.ts';
import { headlineScore, viewerData, VOCABULARY, type FolderView, type LogView } from './data.ts';
import { dataFile, pageFiles, staticFiles, type DynamicAnswer, type PageFile } from './page.ts';

/** The most files of a folder the list reads (the first, in name order); a note says when there are more. */
const MAX_FOLDER_FILES = 500;
/** How deep the list looks below the folder (lm-evaluation-harness writes `DIR/<model>/samples_*.jsonl`). */
const MAX_FOLDER_DEPTH = 3;

const json = (name: string, value: unknown, status?: number): PageFile => ({
  name,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(value),
  ...(status === undefined ? {} : { status }),
});

/** A file as the viewer read it, and the sha256 of its bytes taken before they were read. */
export interface ServedFile {
  file: ResultFile;
  sha256: string;
}

/** The sha256 of a file's bytes as they are now, streamed 1 MiB at a time (a link is not followed). */
async function contentHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  await streamBytes(path, false, (bytes) => void hash.update(bytes));
  return hash.digest('hex');
}

/**
 * Reads files to serve with `read`, hashing each first: a change from then on, during the read
 * too, gives another hash. The reader's errors come first, since they say what is wrong with a file.
 */
export async function readServed(
  paths: readonly string[],
  read: () => Promise<readonly ResultFile[]>,
): Promise<ServedFile[]> {
  const hashes = await Promise.allSettled(paths.map(contentHash));
  const files = await read();
  return files.map((file, index) => {
    const hash = hashes[index]!;
    if (hash.status === 'rejected') throw hash.reason;
    return { file, sha256: hash.value };
  });
}

/** Throws the one-line error of a file whose bytes are no longer those hashed when it was read. */
async function checkUnchanged(path: string, sha256: string): Promise<void> {
  if ((await contentHash(path)) !== sha256)
    throw fileError(
      path,
      'the file changed since it was read; run tinyagent view again to see what it holds now',
    );
}

/**
 * `sample?file=I&task=T&sample=S`: the detail of file I's row (T, S) as its tool records it,
 * re-read from the file (eval/io/formats/detail.ts); undefined (404) for a row the files do not
 * hold. A file that can no longer be read, or whose bytes changed since it was read (checked after
 * the detail's read, so a change during it counts), answers its one-line error (422).
 */
async function sampleAnswer(
  files: readonly ServedFile[],
  query: URLSearchParams,
): Promise<PageFile | undefined> {
  const served = files[Number(query.get('file') ?? '')];
  const task = query.get('task');
  const sample = Number(query.get('sample') ?? '');
  const row = served?.file.rows.find((one) => one.task === task && one.sample === sample);
  if (served === undefined || row === undefined) return undefined;
  try {
    const detail = await readSampleDetail(served.file, row);
    if (detail === null) return undefined;
    await checkUnchanged(served.file.path, served.sha256);
    return json('sample', detail);
  } catch (error) {
    if (error instanceof ResultFileError) return json('sample', { error: error.message }, 422);
    throw error;
  }
}

/** The page of one or two files as served: their data, and each sample's detail on request. */
export function fileSite(served: readonly ServedFile[]): { files: PageFile[]; dynamic: DynamicAnswer } {
  return {
    files: pageFiles(
      viewerData(
        served.map(({ file }) => file),
        { details: true },
      ),
    ),
    dynamic: (path, query) => (path === '/sample' ? sampleAnswer(served, query) : Promise.resolve(undefined)),
  };
}

/** The files below `dir`, in name order, at most MAX_FOLDER_DEPTH deep (dot files and sidecars left out). */
function filesBelow(dir: string, notes: string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string, depth: number) => {
    // Names in one folder differ: no two compare equal.
    const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name.endsWith('.harness.json')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_FOLDER_DEPTH) walk(path, depth + 1);
        else
          notes.push(`${relative(dir, path)}/: more than ${MAX_FOLDER_DEPTH} folders deep, not looked into`);
      } else if (entry.isFile()) found.push(path);
    }
  };
  walk(dir, 0);
  if (found.length > MAX_FOLDER_FILES) {
    notes.push(
      `${found.length} files: the first ${MAX_FOLDER_FILES} in name order are listed; view a subfolder for the others`,
    );
    return found.slice(0, MAX_FOLDER_FILES);
  }
  return found;
}

/** A file of a folder that the readers could not read: its name and problem go in. */
const UNREAD = {
  href: null,
  format: null,
  benchmark: null,
  origin: {},
  score: null,
  tasks: 0,
  rows: 0,
  vocabulary: null,
} as const;

/** The list of a folder's files, as a page's static files and data. */
const listFiles = (folder: FolderView): PageFile[] =>
  pageFiles({ files: [], pairing: null, difference: null, details: false, folder });

/** A folder's list, the paths of the result files in it, and the sha256 of each as read for the list. */
export interface FolderLogs {
  folder: FolderView;
  paths: string[];
  hashes: string[];
}

/**
 * The result files of a folder: each file below it read by the readers' detection (as `metrics`
 * reads it, with the same options); those that are not result files are listed with the reason.
 */
export async function folderLogs(
  dir: string,
  options: ReadOptions,
): Promise<FolderLogs & { files: ResultFile[] }> {
  const notes: string[] = [];
  const logs: LogView[] = [];
  const paths: string[] = [];
  const hashes: string[] = [];
  const files: ResultFile[] = [];
  for (const path of filesBelow(dir, notes)) {
    const name = relative(dir, path);
    try {
      // hashed before it is read, as readServed does
      const sha256 = await contentHash(path);
      const file = await readResults(path, options);
      logs.push({
        name,
        href: `log/${paths.length}/index.html`,
        format: file.format,
        benchmark: file.benchmark?.name ?? null,
        origin: file.origin ?? {},
        score: headlineScore(file),
        tasks: new Set(file.rows.map((row) => row.task)).size,
        rows: file.rows.length,
        vocabulary: VOCABULARY[file.format],
        problem: null,
      });
      paths.push(path);
      hashes.push(sha256);
      files.push({ ...file, rows: [] }); // the format is kept, for the options' check; the rows are let go
    } catch (error) {
      if (!(error instanceof ResultFileError)) throw error;
      const problem = error.message.startsWith(path)
        ? error.message
            .slice(path.length)
            .replace(/^:(\d+):/, 'line $1:')
            .replace(/^:\s*/, '')
        : error.message;
      logs.push({ name, ...UNREAD, problem });
    }
  }
  return { folder: { path: dir, logs, notes }, paths, hashes, files };
}

/**
 * A folder served: its list at `/`, and each result file's page at `/log/N/` (read again when
 * opened, the last one opened kept), with its samples' details at `/log/N/sample`. A file whose
 * bytes changed since they were read for the list answers its one-line error (422) instead.
 */
export function folderSite(
  { folder, paths, hashes }: FolderLogs,
  options: ReadOptions,
): { files: PageFile[]; dynamic: DynamicAnswer } {
  const statics = new Map(staticFiles().map((file) => [file.name, file]));
  let open: { index: number; files: ServedFile[]; data: PageFile } | undefined;
  const opened = async (index: number) => {
    if (open?.index !== index) {
      const [path, sha256] = [paths[index]!, hashes[index]!];
      await checkUnchanged(path, sha256);
      const file = await readResults(path, options);
      open = { index, files: [{ file, sha256 }], data: dataFile(viewerData([file], { details: true })) };
    }
    return open;
  };
  return {
    files: listFiles(folder),
    async dynamic(path, query) {
      const match = /^\/log\/(0|[1-9][0-9]{0,8})\/([a-z.]*)$/.exec(path);
      if (match === null || Number(match[1]) >= paths.length) return undefined;
      const index = Number(match[1]);
      const name = match[2] === '' ? 'index.html' : match[2]!;
      if (statics.has(name)) return statics.get(name);
      if (name === 'data.js') return (await opened(index)).data;
      if (name === 'sample') return sampleAnswer((await opened(index)).files, query);
      return undefined;
    },
  };
}

/** A folder written to disk (--out): the list as index.html, each file's page in log/N/ (outcomes only). */
export async function folderPages(
  folder: FolderView,
  paths: readonly string[],
  options: ReadOptions,
): Promise<PageFile[]> {
  const pages = listFiles(folder);
  for (const [index, path] of paths.entries()) {
    const data = viewerData([await readResults(path, options)]);
    pages.push(...pageFiles(data).map((file) => ({ ...file, name: join('log', String(index), file.name) })));
  }
  return pages;
}
