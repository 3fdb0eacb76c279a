/** Result-file input for the CLI and the diagnosis (node:fs; kept apart from the pure statistics). */
export { readResultFile, parseResultText, ResultFileError, type ResultFile, type ResultRow } from './resultFile.ts';
export { groupOutcomes, type GroupedOutcomes, type TaskOutcomes, type Issue, type IssueKind } from './outcomes.ts';
export { readResults, batchOf } from './batch.ts';
