import { fileError, ResultFileError } from '../errors.ts';
import type { ResultFile, ResultRow } from '../resultFile.ts';
import { RowBudget, type LineReader, type RowLimit } from '../source.ts';
import { idOf, jsonLine, mixedFormat, prefixOf, shownJson } from './json.ts';

/** The most characters of a line's `result` a row keeps ("passed", "timed out", "failed: " and the exception). */
const RESULT_CHARS = 1000;

/**
 * HumanEval's `evaluate_functional_correctness` output, `SAMPLES_results.jsonl` (openai/human-eval,
 * `human_eval/evaluation.py`): task = `task_id`, sample = the line's position among its task's
 * lines (the order of `completion_id`), passed = `passed`, `result` kept in `extra` (docs/METRICS.md).
 */
export function humanEvalReader(path: string, limit: RowLimit = {}): LineReader<ResultFile> {
  const rows: ResultRow[] = [];
  const budget = new RowBudget(path, limit);
  const samplesOf = new Map<string, number>();
  let firstLine: number | undefined;
  return {
    line(text, line) {
      const record = jsonLine(text, line, path, { maxBytes: budget.maxBytes });
      if (record === undefined) return;
      firstLine ??= line;
      const fail = (field: string, detail: string): never => {
        throw new ResultFileError(path, line, field, detail);
      };
      if (!('task_id' in record))
        throw (
          mixedFormat(path, line, record, 'humaneval', firstLine) ??
          fail('task_id', 'missing (a HumanEval results line has task_id, completion, result and passed)')
        );
      if (!('passed' in record))
        fail(
          'passed',
          'missing: this is a samples line; run evaluate_functional_correctness on the file and read its *_results.jsonl',
        );
      const task =
        idOf(record.task_id) ?? fail('task_id', `expected a string, got ${shownJson(record.task_id)}`);
      const { passed } = record;
      if (passed !== true && passed !== false && passed !== 1 && passed !== 0)
        fail('passed', `expected true or false, got ${shownJson(passed)}`);
      const sample = samplesOf.get(task) ?? 0;
      samplesOf.set(task, sample + 1);
      const row: ResultRow = { task, sample, passed: passed === true || passed === 1, line };
      const { result } = record;
      if (typeof result === 'string')
        row.extra = {
          result:
            result.length > RESULT_CHARS
              ? `${prefixOf(result, RESULT_CHARS)} (${result.length} characters)`
              : result,
        };
      budget.row(
        line,
        task.length + (typeof result === 'string' ? Math.min(result.length, RESULT_CHARS) : 0),
      );
      rows.push(row);
    },
    end() {
      if (rows.length === 0) throw fileError(path, 'no result rows');
      // HumanEval names its problems HumanEval/0, HumanEval/1, ...; variants keep the form
      const prefixes = new Set([...samplesOf.keys()].map((task) => /^(.+)\/[^/]*$/.exec(task)?.[1]));
      const [prefix] = prefixes;
      return {
        path,
        format: 'humaneval',
        rows,
        benchmark:
          prefixes.size === 1 && prefix !== undefined
            ? { tool: 'HumanEval', name: prefix, source: `the task_id prefix '${prefix}/'` }
            : { tool: 'HumanEval' },
        notes: [
          "outcome: 'passed'; task = task_id, sample = the line's position among its task's lines, in file order",
        ],
      };
    },
  };
}
