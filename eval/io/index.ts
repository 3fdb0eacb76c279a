/** Result-file input for the CLI and the diagnosis (node:fs; kept apart from the pure statistics). */
export {
  parseResultText,
  ResultFileError,
  type ResultFile,
  type ResultRow,
  type ResultFormat,
  type ReportedValue,
  type Benchmark,
  type Origin,
} from './resultFile.ts';
export {
  groupOutcomes,
  type GroupedOutcomes,
  type TaskOutcomes,
  type Issue,
  type IssueKind,
} from './outcomes.ts';
export { readResults, batchOf, groupBatch, type ReadOptions } from './batch.ts';
export { groupScores, isGraded, refuseGraded, type TaskScores } from './scores.ts';
export {
  resultRows,
  writeResultFile,
  writeEvaluation,
  type EvaluationLike,
  type ResultSample,
} from './resultWriter.ts';
export { FORMAT_CHOICES, OPTION_FORMATS, type FormatChoice } from './formats/detect.ts';
export { MAX_ROWS, type RowLimit } from './source.ts';
export type { InspectOptions } from './formats/inspect.ts';
export type { LmEvalOptions } from './formats/lmEval.ts';
export { checkSameBenchmark, describeBenchmark } from './benchmark.ts';
export {
  readSampleDetail,
  DETAIL_MAX_CHARS,
  DETAIL_MAX_MESSAGES,
  type SampleDetail,
  type DetailPart,
} from './formats/detail.ts';
export { jsonShape, MAX_JSON_DEPTH } from './formats/json.ts';
