import type { Origin, ReportedValue } from '../resultFile.ts';
import { isObject, setFields } from './json.ts';

// What an Inspect log's header (the `EvalLog` without its samples) says for inspect.ts: the harness
// that generated the samples, the run's origin, and the numbers `results.scores` reports.

const nonEmpty = (value: unknown): value is Record<string, unknown> =>
  isObject(value) && Object.keys(value).length > 0;

/** The harness fields of an `EvalSpec` and `EvalPlan`: what generated the samples. */
export function harnessOf(log: Record<string, unknown>): Record<string, unknown> {
  const spec = log.eval as Record<string, unknown>;
  const packages = isObject(spec.packages) ? spec.packages : {};
  const harness: Record<string, unknown> = {
    tool: 'inspect_ai',
    ...(packages.inspect_ai !== undefined ? { version: packages.inspect_ai } : {}),
    ...setFields(spec, 'task task_version model model_base_url solver'),
    ...Object.fromEntries(
      ['model_generate_config', 'model_args', 'task_args', 'solver_args'].flatMap((key) =>
        nonEmpty(spec[key]) ? [[key, spec[key]]] : [],
      ),
    ),
    ...setFields({
      dataset: isObject(spec.dataset) ? spec.dataset.name : undefined,
      revision: isObject(spec.revision) ? spec.revision.commit : undefined,
    }),
    ...setFields(
      isObject(spec.config) ? spec.config : {},
      'epochs epochs_reducer limit message_limit token_limit time_limit working_limit',
    ),
  };
  if (isObject(log.plan)) {
    const steps = Array.isArray(log.plan.steps)
      ? log.plan.steps
          .map((step) => (isObject(step) ? step.solver : undefined))
          .filter((name) => name !== undefined)
      : [];
    if (steps.length > 0) harness.plan = steps;
    if (nonEmpty(log.plan.config)) harness.plan_config = log.plan.config;
  }
  return harness;
}

/** The log's model, date (`stats.completed_at`, else `eval.created`) and status, where they are text. */
export function originOf(log: Record<string, unknown>): Origin {
  const spec = log.eval as Record<string, unknown>;
  const completed = isObject(log.stats) ? log.stats.completed_at : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return setFields({
    model: text(spec.model),
    date: text(completed) ?? text(spec.created),
    status: text(log.status),
  });
}

/** `results.scores` (or the legacy `results.scorer` with `results.metrics`) as [name, metrics, reducer]. */
export function resultScores(
  log: Record<string, unknown>,
): Array<{ name: string; metrics: Record<string, unknown>; reducer: unknown }> {
  const results = log.results;
  if (!isObject(results)) return [];
  if (Array.isArray(results.scores))
    return results.scores.filter(isObject).map((score) => ({
      name: String(score.name),
      metrics: isObject(score.metrics) ? score.metrics : {},
      reducer: score.reducer,
    }));
  if (isObject(results.scorer))
    return [
      {
        name: String(results.scorer.name),
        metrics: isObject(results.metrics) ? results.metrics : {},
        reducer: undefined,
      },
    ];
  return [];
}

/**
 * The values `results.scores` reports for `scorer` that the rows can check (accuracy, mean,
 * stderr), and the other metrics it reports, named, unchecked. `held` is the number of samples.
 */
export function reportedValues(
  log: Record<string, unknown>,
  scored: ReturnType<typeof resultScores>,
  scorer: string,
  held: number,
): { reported: ReportedValue[]; unchecked: string[] } {
  // results.total_samples (dataset samples x epochs): fewer sample records than that means the
  // log holds part of its run (trimmed, or written with --log-samples off for some), so the
  // reported value is over samples the rows do not have
  const total = isObject(log.results) ? log.results.total_samples : undefined;
  const coverage =
    typeof total === 'number' && Number.isSafeInteger(total) && held < total
      ? { held, counted: total, unit: 'samples' as const, where: 'results.total_samples' }
      : undefined;
  const reported: ReportedValue[] = [];
  const unchecked: string[] = [];
  for (const score of scored.filter(({ name }) => name === scorer)) {
    for (const [name, metric] of Object.entries(score.metrics)) {
      // accuracy and mean are the mean of the values; stderr (inspect_ai/scorer/_metrics/std.py) its standard error
      const statistic =
        name === 'stderr' ? 'stderr' : name === 'accuracy' || name === 'mean' ? 'mean' : undefined;
      const value = isObject(metric) ? metric.value : undefined;
      const finite = typeof value === 'number' && Number.isFinite(value);
      // a metric of the task's own (or one of Inspect's this reader does not recompute)
      if (statistic === undefined) unchecked.push(`'${name}'${finite ? ` ${value}` : ''}`);
      else if (finite)
        reported.push({
          name,
          value,
          where: `results.scores['${scorer}'].metrics.${name}${typeof score.reducer === 'string' ? ` (epochs reduced by ${score.reducer})` : ''}`,
          ...(statistic === 'stderr' ? { statistic } : {}),
          ...(coverage === undefined ? {} : { coverage }),
        });
    }
  }
  return { reported, unchecked };
}
