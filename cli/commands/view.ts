import { statSync } from 'node:fs';
import { checkSameBenchmark, readResults } from '../../eval/io/index.ts';
import {
  boolFlag,
  checkResultFileOptions,
  InputError,
  intFlag,
  RESULT_FILE_FLAGS,
  resultFileOptions,
  stringFlag,
  UsageError,
  type Command,
  type CommandArgs,
} from '../args.ts';
import { viewerData } from '../view/data.ts';
import { pageFiles, servePage, writePage } from '../view/page.ts';

const DEFAULT_PORT = 7474;

/** --out DIR: a folder or nothing yet; a file there is refused before anything is read. */
function outFolder(args: CommandArgs): string | undefined {
  const out = stringFlag(args, 'out');
  if (out === undefined) return undefined;
  if (out.trim() === '') throw new UsageError('--out must name a folder');
  let stats;
  try {
    stats = statSync(out);
  } catch {
    return out; // nothing there yet: writing makes it
  }
  if (!stats.isDirectory())
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

async function run(args: CommandArgs): Promise<number> {
  const [path, second] = args.positionals as [string, string | undefined];
  const compare = stringFlag(args, 'compare');
  if (second !== undefined && compare !== undefined)
    throw new UsageError('give the second file once: as FILE2 or as --compare FILE2');
  const other = second ?? compare;
  if (other !== undefined && other.trim() === '') throw new UsageError('--compare must name a file');
  const out = outFolder(args);
  if (out !== undefined && args.flags.port !== undefined)
    throw new UsageError('--port serves the page and --out writes it to disk: give one of them');
  const port = intFlag(args, 'port', DEFAULT_PORT, { min: 0, max: 65535 });
  const options = resultFileOptions(args);
  const files = [await readResults(path, options)];
  if (other !== undefined) files.push(await readResults(other, options));
  checkResultFileOptions(options, files);
  if (files.length === 2)
    checkSameBenchmark(files[0]!, files[1]!, { allow: boolFlag(args, 'allow-different-tasks') });
  const data = viewerData(files);
  const what = `${data.files[0]!.tasks.length} tasks, ${files.reduce((sum, file) => sum + file.rows.length, 0)} rows`;
  if (out !== undefined) {
    const page = writePage(out, data);
    process.stdout.write(`wrote ${page} (${what}): open it in a browser\n`);
    return 0;
  }
  let viewer;
  try {
    viewer = await servePage(pageFiles(data), port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new InputError(`--port ${port} is in use; give another, or --port 0 for a free one`);
    if (code === 'EACCES')
      throw new InputError(`--port ${port}: not allowed to listen there; give a port above 1023`);
    throw error;
  }
  process.stdout.write(
    `episode viewer of ${files.map((file) => file.path).join(' vs ')} (${what}): ${viewer.url}  (Ctrl-C stops it)\n`,
  );
  await untilStopped();
  await viewer.close();
  return 0;
}

export const command: Command = {
  name: 'view',
  summary:
    "Episode viewer of a result file in the browser: tasks with success counts and pass@k, each episode's transcript, filters, two files side by side",
  usage:
    'tinyagent view FILE [FILE2 | --compare FILE2] [--port N | --out DIR] [--allow-different-tasks] [--format F] [--scorer NAME] [--partial-as pass|fail] [--metric NAME] [--filter NAME]   (FILE: result rows, e.g. of tinyagent eval --out FILE --transcripts; HumanEval, Inspect, lm-evaluation-harness files too)',
  positionals: { min: 1, max: 2 },
  flags: {
    compare: {
      type: 'string',
      description:
        'a second result file: episode i of each task side by side (the same renamed task under both when the env seeds match)',
    },
    port: {
      type: 'string',
      description: 'serve on http://127.0.0.1:N/ (0: a free port); this machine only',
      default: String(DEFAULT_PORT),
      range: { min: 0, max: 65535 },
    },
    out: {
      type: 'string',
      description: 'write the page and its data into this folder instead (index.html opens from disk)',
    },
    'allow-different-tasks': {
      type: 'boolean',
      description: 'pair two files that record different benchmarks (refused otherwise, as in compare)',
    },
    ...RESULT_FILE_FLAGS,
  },
  run,
};
