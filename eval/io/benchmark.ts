import { InputError } from '../../lib/errors.ts';
import type { Benchmark, ResultFile } from './resultFile.ts';

/** What a benchmark is called in a message, e.g. `Inspect task 'popularity' (eval.task)`. */
export function describeBenchmark(benchmark: Benchmark | undefined): string {
  if (benchmark === undefined || (benchmark.tool === undefined && benchmark.name === undefined))
    return 'no benchmark recorded';
  const { tool, name, source } = benchmark;
  const kind = tool === 'Inspect' || tool === 'lm-evaluation-harness' ? 'task' : 'benchmark';
  return `${tool === undefined ? '' : `${tool} `}${name === undefined ? `(no ${kind} name recorded)` : `${kind} '${name}'`}${source === undefined ? '' : ` (${source})`}`;
}

/** A name without its package: Inspect records a task as `inspect_evals/gsm8k` or `gsm8k`. */
const baseName = (name: string) => name.slice(name.lastIndexOf('/') + 1);

/** Whether two files record different tools or names; a side that records neither is not known to differ. */
function differ(a: Benchmark | undefined, b: Benchmark | undefined): boolean {
  if (a?.tool !== undefined && b?.tool !== undefined && a.tool !== b.tool) return true;
  return a?.name !== undefined && b?.name !== undefined && baseName(a.name) !== baseName(b.name);
}

/**
 * Checks that two files to be paired by task id hold one benchmark (docs/METRICS.md, "Comparing
 * two files"): the same id in two benchmarks names unrelated items.
 * @returns a line saying what each file records; beginning `warning:` when they differ and `allow` let them through.
 * @throws InputError naming both benchmarks when they differ and `allow` is not set.
 */
export function checkSameBenchmark(a: ResultFile, b: ResultFile, { allow }: { allow: boolean }): string {
  const [left, right] = [describeBenchmark(a.benchmark), describeBenchmark(b.benchmark)];
  if (differ(a.benchmark, b.benchmark)) {
    const both = `A ${a.path} is ${left}, B ${b.path} is ${right}`;
    if (!allow)
      throw new InputError(
        `different benchmarks: ${both}; their task ids name different items, so pairing them by id compares nothing (pass --allow-different-tasks to pair them anyway)`,
      );
    return `warning: different benchmarks paired by id, as --allow-different-tasks asks: ${both}`;
  }
  // a side without a name is not known to differ, and not known to agree: the line says so, never silence
  if (a.benchmark?.name === undefined && b.benchmark?.name === undefined && left === right)
    return `benchmark: neither file records its ${left === 'no benchmark recorded' ? 'benchmark' : `task name (${left}, both)`}, so pairing by task id assumes both hold the same one (A ${a.path}, B ${b.path})`;
  if (a.benchmark?.name === undefined || b.benchmark?.name === undefined)
    return `benchmark: A ${left}, B ${right}; pairing by task id assumes both hold the same one`;
  return left === right ? `benchmark: ${left}, both` : `benchmark: A ${left}, B ${right}`;
}
