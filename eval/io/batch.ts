import { gunzipSync } from 'node:zlib';
import { ResultFileError } from './errors.ts';
import { detectFormat, isZip, type Detection, type FormatChoice } from './formats/detect.ts';
import { parseHumanEval } from './formats/humaneval.ts';
import {
  parseInspectJson,
  parsedInspectJson,
  readInspectArchive,
  type InspectOptions,
} from './formats/inspect.ts';
import { decodeText } from './formats/json.ts';
import { readLmEvalSamples, type LmEvalOptions } from './formats/lmEval.ts';
import { groupOutcomes, type GroupedOutcomes, type TaskOutcomes } from './outcomes.ts';
import { addSidecarHarness, parseResultText, readBytes, type ResultFile } from './resultFile.ts';

/** How to read a file: its format (detected when `auto` or absent) and each format's choice. */
export interface ReadOptions extends InspectOptions, LmEvalOptions {
  format?: FormatChoice;
}

/** The bytes of a gzip file unpacked (HumanEval and lm-evaluation-harness files are often kept as .gz). */
function gunzipped(bytes: Buffer, path: string): Buffer {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return gunzipSync(bytes);
  } catch (error) {
    throw new ResultFileError(path, 0, undefined, `not a readable gzip file (${(error as Error).message})`);
  }
}

/**
 * Reads a result file for a statistics command: the project's rows (JSONL or CSV), a HumanEval
 * `*_results.jsonl`, an Inspect log (`.json` or `.eval`) or lm-evaluation-harness
 * `samples_*.jsonl`, gzipped or not; the format is detected from the content unless
 * `options.format` names it (docs/METRICS.md, "Other tools' result files"). A sidecar
 * `FILE.harness.json` adds a harness to any of them.
 * @throws ResultFileError for every problem, from a missing file or a folder to a malformed row
 *   or an ambiguous file (several scorers, metrics or filters: the message names the option).
 */
export function readResults(path: string, options: ReadOptions = {}): ResultFile {
  const bytes = gunzipped(readBytes(path) as Buffer, path);
  const choice = options.format ?? 'auto';
  // detection decodes the text, and parses an indented Inspect log whole: both are handed on
  const detected: Detection =
    choice === 'auto'
      ? detectFormat(bytes, path)
      : { format: choice === 'inspect' ? (isZip(bytes) ? 'inspect-eval' : 'inspect-json') : choice };
  const { format, document } = detected;
  const text = () => detected.text ?? decodeText(bytes);
  let file: ResultFile;
  if (format === 'jsonl' || format === 'csv') file = parseResultText(text(), { path, format });
  else if (format === 'humaneval') file = parseHumanEval(text(), path);
  else if (format === 'lm-eval') file = readLmEvalSamples(text(), path, options);
  else if (format === 'inspect-json')
    file =
      document !== undefined
        ? parsedInspectJson(document, path, options)
        : parseInspectJson(text(), path, options);
  else file = readInspectArchive(bytes, path, options);
  return addSidecarHarness(file, path);
}

/**
 * One batch of a file grouped (groupOutcomes): the task x sample matrix (tasks in order of first
 * appearance) with the issues that remain (gaps, uneven samples) and whether rows carry turns.
 * Duplicated (task, sample[, turn]) rows and several runs without a choice are errors here, since
 * any number computed from them would silently pick one of the rows; `diagnose` shows them as
 * evidence instead.
 * @throws ResultFileError on duplicates, several runs without `run`, or no rows for `run`.
 */
export function groupBatch(file: ResultFile, run: string | undefined): GroupedOutcomes {
  const grouped = groupOutcomes(file.rows, run === undefined ? {} : { run });
  for (const issue of grouped.issues) {
    if (issue.kind === 'duplicate')
      throw new ResultFileError(
        file.path,
        0,
        undefined,
        `${issue.message} (each task and sample index must appear once; try tinyagent diagnose)`,
      );
    if (issue.kind === 'multiple-runs')
      throw new ResultFileError(file.path, 0, undefined, `${issue.message} with --run`);
  }
  if (run !== undefined && grouped.tasks.length === 0)
    throw new ResultFileError(
      file.path,
      0,
      undefined,
      `no rows with run '${run}' (have ${grouped.runs.join(', ') || 'none'})`,
    );
  return grouped;
}

/** One batch of a file as a task x sample matrix: groupBatch's tasks. @throws ResultFileError as groupBatch. */
export function batchOf(file: ResultFile, run: string | undefined): TaskOutcomes[] {
  return groupBatch(file, run).tasks;
}
