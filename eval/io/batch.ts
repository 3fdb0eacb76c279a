import { fileError } from './errors.ts';
import { detectingReader, READERS, type ReadOptions } from './formats/detect.ts';
import { readInspectArchive } from './formats/inspect.ts';
import { groupOutcomes, type GroupedOutcomes, type TaskOutcomes } from './outcomes.ts';
import { addSidecarHarness, type Benchmark, type ResultFile } from './resultFile.ts';
import {
  bufferAccess,
  defaultMaxBytes,
  FileAccess,
  fileSize,
  isGzip,
  isLfsPointer,
  lfsPointerError,
  LineSplitter,
  streamBytes,
  unpackedArchive,
} from './source.ts';
import { isZip } from './zip.ts';

export type { ReadOptions };

/**
 * Reads a result file of any format (docs/METRICS.md, "Result files" and "Other tools' result
 * files"), gzipped or not, detected from the content unless `options.format` names it; a sidecar
 * `FILE.harness.json` adds a harness. Only what the rows need is kept, within `maxRows` and `maxBytes`.
 * @throws ResultFileError for every problem, from a missing file to a malformed row or an ambiguous file.
 */
export async function readResults(path: string, options: ReadOptions = {}): Promise<ResultFile> {
  const size = fileSize(path) as number;
  const choice = options.format ?? 'auto';
  const archive = choice === 'auto' || choice === 'inspect';
  const maxBytes = options.maxBytes ?? defaultMaxBytes();
  const access = new FileAccess(path, size);
  let file: ResultFile;
  try {
    const head = access.read(0, 64);
    if (isLfsPointer(head)) throw lfsPointerError(path);
    const gzip = isGzip(head);
    if (!gzip && archive && isZip(head)) file = readInspectArchive(access, path, options);
    else {
      const reader =
        choice === 'auto'
          ? detectingReader(path, options, gzip ? undefined : size)
          : READERS[choice === 'inspect' ? 'inspect-json' : choice](path, options);
      const lines = new LineSplitter(path, reader, { maxBytes });
      // a gzipped file's first unpacked bytes tell whether it is an archive
      let zipped: boolean | undefined;
      await streamBytes(path, gzip, (bytes) => {
        if (zipped === undefined && gzip) {
          if (isLfsPointer(bytes)) throw lfsPointerError(path);
          zipped = archive && isZip(bytes);
        }
        if (!zipped) lines.push(bytes);
        return !zipped;
      });
      if (zipped) {
        const unpacked = await unpackedArchive(path, maxBytes);
        file = readInspectArchive(bufferAccess(unpacked), path, options);
      } else {
        lines.end();
        file = reader.end();
      }
    }
  } finally {
    access.close();
  }
  file = addSidecarHarness(file, path, options);
  if (file.format === 'jsonl' || file.format === 'csv') {
    const benchmark = rowsBenchmark(file);
    if (benchmark !== undefined) file.benchmark = benchmark;
    const model = rowsModel(file);
    if (model !== undefined) file.origin = { model };
  }
  return file;
}

/** The model of the project's rows: the harness's `model`, else the checkpoint (or scripted player) of the provenance header. */
function rowsModel({ harness, header }: ResultFile): string | undefined {
  if (typeof harness?.model === 'string' && harness.model.trim() !== '') return harness.model.trim();
  const provenance = header?.provenance as Record<string, unknown> | undefined;
  const checkpoint = provenance?.checkpoint as Record<string, unknown> | null | undefined;
  if (typeof checkpoint?.path === 'string') return checkpoint.path;
  return typeof provenance?.player === 'string' ? provenance.player : undefined;
}

/** The benchmark of the project's rows: the harness's `benchmark`, else the TinyAgent gym for a `tinyagent eval --out` file. */
function rowsBenchmark({ harness, header }: ResultFile): Benchmark | undefined {
  if (typeof harness?.benchmark === 'string' && harness.benchmark.trim() !== '')
    return { name: harness.benchmark.trim(), source: 'harness.benchmark' };
  const provenance = header?.provenance;
  if (typeof provenance === 'object' && provenance !== null && 'harnessHash' in provenance)
    return { tool: 'TinyAgent', name: 'gym', source: 'the provenance header of tinyagent eval --out' };
  return undefined;
}

/**
 * One batch of a file grouped (groupOutcomes). Duplicated rows and several runs without a choice
 * are errors here: any number computed from them would silently pick one of the rows.
 */
export function groupBatch(file: ResultFile, run: string | undefined): GroupedOutcomes {
  const grouped = groupOutcomes(file.rows, run === undefined ? {} : { run });
  for (const issue of grouped.issues) {
    if (issue.kind === 'duplicate')
      throw fileError(
        file.path,
        `${issue.message} (each task and sample index must appear once; try tinyagent diagnose)`,
      );
    if (issue.kind === 'multiple-runs') throw fileError(file.path, `${issue.message} with --run`);
  }
  if (run !== undefined && grouped.tasks.length === 0)
    throw fileError(file.path, `no rows with run '${run}' (have ${grouped.runs.join(', ') || 'none'})`);
  return grouped;
}

/** One batch of a file as a task x sample matrix: groupBatch's tasks. */
export function batchOf(file: ResultFile, run: string | undefined): TaskOutcomes[] {
  return groupBatch(file, run).tasks;
}
