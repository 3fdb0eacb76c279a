/** Result-file input for the CLI and the diagnosis (node:fs; kept apart from the pure statistics). */
export { ResultFileError } from './errors.ts';
export {
  type ResultFile,
  type ResultRow,
  type ResultFormat,
  type ReportedValue,
  type Origin,
} from './resultFile.ts';
export { groupOutcomes, type GroupedOutcomes, type TaskOutcomes } from './outcomes.ts';
export { readResults, batchOf, groupBatch, type ReadOptions } from './batch.ts';
export { groupScores, isGraded, refuseGraded } from './scores.ts';
export { writeEvaluation } from './resultWriter.ts';
export { MAX_ROWS } from './source.ts';
export { checkSameBenchmark, describeBenchmark } from './benchmark.ts';
export {
  readSampleDetail,
  DETAIL_MAX_CHARS,
  DETAIL_MAX_MESSAGES,
  type DetailPart,
} from './formats/detail.ts';
export { jsonShape, MAX_JSON_DEPTH } from './formats/json.ts';
