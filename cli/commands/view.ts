import { existsSync } from 'node:fs';
import { checkSameBenchmark } from '../../eval/io/index.ts';
import { isFolder } from '../../lib/files.ts';
import {
  boolFlag,
  checkResultFileOptions,
  type Command,
  type CommandArgs,
  InputError,
  integers,
  intFlag,
  readResultFiles,
  RESULT_FILE_FLAGS,
  resultFileOptions,
  stringFlag,
  switchFlag,
  UsageError,
  valueFlag,
} from '../args.ts';
import { viewerData } from '../view/data.ts';
import { pageFiles, servePage, writePage, type DynamicAnswer, type PageFile } from '../view/page.ts';
import { fileSite, folderLogs, folderPages, folderSite, readServed } from '../view/site.ts';

const DEFAULT_PORT = 7474;

/** --out DIR: a folder or nothing yet; a file there is refused before anything is read. */
function outFolder(args: CommandArgs): string | undefined {
  const out = stringFlag(args, 'out');
  if (out !== undefined && existsSync(out) && !isFolder(out))
    throw new InputError(`--out: '${out}' is not a folder; give a folder (or a new path)`);
  return out;
}

/** Waits for Ctrl-C (or a TERM signal). */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** A page to serve or write: its files, what it shows, and its title. */
type Page = { site: { files: PageFile[]; dynamic?: DynamicAnswer }; what: string; title: string };

/** The page of one or two files: written (outcomes only) or served (each sample's detail on request). */
async function filesPage(
  args: CommandArgs,
  path: string,
  other: string | undefined,
  writing: boolean,
): Promise<Page> {
  const paths = other === undefined ? [path] : [path, other];
  const served = await readServed(paths, () => readResultFiles(args, paths));
  const files = served.map(({ file }) => file);
  if (files.length === 2)
    checkSameBenchmark(files[0]!, files[1]!, { allow: boolFlag(args, 'allow-different-tasks') });
  const tasks = new Set(files[0]!.rows.map((row) => row.task)).size;
  return {
    site: writing ? { files: pageFiles(viewerData(files)) } : fileSite(served),
    what: `${tasks} tasks, ${files.reduce((sum, file) => sum + file.rows.length, 0)} rows`,
    title: `episode viewer of ${files.map((file) => file.path).join(' vs ')}`,
  };
}

/** The page of a folder: the result files the readers detect in it, each opening on a click. */
async function folderPage(args: CommandArgs, dir: string, writing: boolean): Promise<Page> {
  if (boolFlag(args, 'allow-different-tasks'))
    throw new UsageError('--allow-different-tasks pairs two files; a folder is viewed one file at a time');
  const options = resultFileOptions(args);
  const listed = await folderLogs(dir, options);
  const { folder, paths, files } = listed;
  if (paths.length === 0)
    throw new InputError(
      `${dir}: no result file the readers detect in this folder (${folder.logs.length} files looked at); name a file to see why it is not read`,
    );
  checkResultFileOptions(options, files);
  return {
    site: writing ? { files: await folderPages(folder, paths, options) } : folderSite(listed, options),
    what: `${paths.length} result files of ${folder.logs.length}`,
    title: `log list of ${dir}`,
  };
}

async function run(args: CommandArgs): Promise<number> {
  const [path, second] = args.positionals as [string, string | undefined];
  const compare = stringFlag(args, 'compare');
  if (second !== undefined && compare !== undefined)
    throw new UsageError('give the second file once: as FILE2 or as --compare FILE2');
  const other = second ?? compare;
  const out = outFolder(args);
  if (out !== undefined && args.flags.port !== undefined)
    throw new UsageError('--port serves the page and --out writes it to disk: give one of them');
  const port = intFlag(args, 'port', DEFAULT_PORT);
  const folder = isFolder(path);
  if (folder && other !== undefined)
    throw new UsageError(
      `${path} is a folder: its list opens one file at a time; compare two files, not a folder`,
    );
  const { site, what, title } = folder
    ? await folderPage(args, path, out !== undefined)
    : await filesPage(args, path, other, out !== undefined);
  if (out !== undefined) {
    const page = writePage(out, site.files);
    process.stdout.write(`wrote ${page} (${what}): open it in a browser\n`);
    return 0;
  }
  let viewer;
  try {
    viewer = await servePage(site.files, port, site.dynamic);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new InputError(`--port ${port} is in use; give another, or --port 0 for a free one`);
    if (code === 'EACCES')
      throw new InputError(`--port ${port}: not allowed to listen there; give a port above 1023`);
    throw error;
  }
  process.stdout.write(`${title} (${what}): ${viewer.url}  (Ctrl-C stops it)\n`);
  await untilStopped();
  await viewer.close();
  return 0;
}

export const command: Command = {
  name: 'view',
  summary:
    "Episode viewer of a result file in the browser: tasks with success counts and pass@k, each episode's transcript (other tools' samples as they record them), filters, two files side by side; a folder's result files as a list to open",
  usage:
    'tinyagent view FILE [FILE2 | --compare FILE2] | DIR  [--port N | --out DIR] [--allow-different-tasks] [--format F] [--scorer NAME] [--partial-as pass|fail] [--metric NAME] [--filter NAME]   (FILE: result rows, e.g. of tinyagent eval --out FILE --transcripts; HumanEval, Inspect, lm-evaluation-harness files too; DIR: a folder of them, listed)',
  positionals: { min: 1, max: 2 },
  flags: {
    compare: valueFlag(
      'a second result file: episode i of each task side by side (the same renamed task under both when the env seeds match)',
    ),
    port: valueFlag('serve on http://127.0.0.1:N/ (0: a free port); this machine only', {
      default: String(DEFAULT_PORT),
      range: integers(0, 65535),
    }),
    out: valueFlag('write the page and its data into this folder instead (index.html opens from disk)'),
    'allow-different-tasks': switchFlag(
      'pair two files that record different benchmarks (refused otherwise, as in compare)',
    ),
    ...RESULT_FILE_FLAGS,
  },
  run,
};
