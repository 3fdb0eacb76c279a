import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults, readSampleDetail } from '../eval/io/index.ts';
import { cli } from './support/cli.ts';

// Files as older versions of the tools wrote them (EleutherAI/lm-evaluation-harness and
// UKGovernmentBEIS/inspect_ai, read at their tags): lm-eval's samples before the
// samples_<task>_<date>.jsonl name, its results file read alone, and an Inspect scorer whose
// metrics are the task's own. Each file is built here in the shape the tool's code writes.

const folder = mkdtempSync(join(tmpdir(), 'readers-versions-'));
function write(name: string, content: string): string {
  const path = join(folder, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}
const lines = (records: unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;

/**
 * Logged samples of `task` as lm_eval/evaluator.py builds `example` (doc_id, doc, target,
 * arguments, resps, filtered_resps, then the metric), one per outcome; `filter` and `metrics`
 * as 0.4.7 on writes them when `modern`.
 */
function samples(task: string, outcomes: number[], { modern = false } = {}) {
  return outcomes.map((acc, doc) => ({
    doc_id: doc,
    doc: { question: `${task} question ${doc}`, label: 1 },
    target: '1',
    arguments: [[`${task} question ${doc}`, ' yes']],
    resps: [[['-0.5', 'True']]],
    filtered_resps: [['-0.5', 'True']],
    ...(modern ? { filter: 'none', metrics: ['acc'] } : {}),
    acc,
  }));
}

/** An aggregated results file (lm_eval/evaluator.py's results_dict; `config` and `git_hash` from __main__). */
function results(tasks: Record<string, number[]>, extra: Record<string, unknown> = {}): string {
  const entries = Object.entries(tasks);
  return JSON.stringify(
    {
      results: Object.fromEntries(
        entries.map(([task, outcomes]) => [
          task,
          {
            'acc,none': outcomes.reduce((a, b) => a + b, 0) / outcomes.length,
            'acc_stderr,none': 0.1,
            alias: task,
          },
        ]),
      ),
      configs: Object.fromEntries(
        entries.map(([task]) => [task, { task, num_fewshot: 0, output_type: 'multiple_choice' }]),
      ),
      versions: Object.fromEntries(entries.map(([task]) => [task, 1.0])),
      'n-shot': Object.fromEntries(entries.map(([task]) => [task, 0])),
      config: { model: 'hf', model_args: 'pretrained=EleutherAI/pythia-160m', limit: null },
      git_hash: 'abc1234',
      ...extra,
    },
    null,
    2,
  );
}

const WINOGRANDE = [1, 0, 1, 1, 0, 1, 0, 1];
const BOOLQ = [0, 0, 1, 1, 1, 1, 0, 1];
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function metricsJson(path: string): Promise<Record<string, any>> {
  const { code, stdout, stderr } = await cli(['metrics', path, '--reps', '200', '--json']);
  expect(stderr, path).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Record<string, any>;
}

describe('lm-evaluation-harness samples before samples_<task>_<date>.jsonl', () => {
  it('builds of May and June 2024: samples_<task>_<date>.json, one object a line, beside results_<date>.json', async () => {
    const date = '2024-05-20T10-00-00.123456';
    const path = write(
      `dev/samples_winogrande_${date}.json`,
      lines(samples('winogrande', WINOGRANDE, { modern: true })),
    );
    write(`dev/results_${date}.json`, results({ winogrande: WINOGRANDE }, { lm_eval_version: '0.4.2' }));
    const report = await metricsJson(path);
    expect((await readResults(path)).benchmark).toEqual({
      tool: 'lm-evaluation-harness',
      name: 'winogrande',
      source: 'the file name samples_<task>_<date>',
    });
    expect(report.meanAccuracy.estimate).toBe(mean(WINOGRANDE));
    expect(report.reported[0]).toMatchObject({ name: 'acc', value: mean(WINOGRANDE) });
    expect(report.harness).toMatchObject({ tool: 'lm-evaluation-harness', version: '0.4.2' });
  });

  // July to October 2023 and 0.4.0 to 0.4.2, read by the two tests below, in either order.
  // lm_eval/__main__.py: output_name = "{}_{}".format(re.sub("/|=", "__", args.model_args), task_name)
  const lined = write(
    'old/pretrained=EleutherAI__pythia-160m_winogrande.jsonl',
    lines(samples('winogrande', WINOGRANDE)),
  );
  write('old/results.json', results({ winogrande: WINOGRANDE, boolq: BOOLQ }));
  const array = write(
    'v040/pretrained__EleutherAI__pythia-160m_boolq.jsonl',
    JSON.stringify(samples('boolq', BOOLQ), null, 2),
  );
  write('v040/results.json', results({ boolq: BOOLQ, boolq_extra: [1] }));

  it('July to October 2023, one object a line, and 0.4.0 to 0.4.2, one indented array: <model_args>_<task>.jsonl beside results.json', async () => {
    for (const [path, task, outcomes] of [
      [lined, 'winogrande', WINOGRANDE],
      [array, 'boolq', BOOLQ],
    ] as const) {
      const report = await metricsJson(path);
      expect(report.format).toBe('lm-eval');
      const { benchmark } = await readResults(path);
      expect(benchmark).toMatchObject({ tool: 'lm-evaluation-harness', name: task });
      expect(benchmark?.source).toMatch(/the tasks of results\.json/);
      expect(report.tasks).toBe(outcomes.length);
      expect(report.meanAccuracy.estimate).toBe(mean(outcomes));
      expect(report.reported[0].value).toBe(mean(outcomes));
    }
    // a row of the array is re-read for the viewer from the element that begins on its line
    const file = await readResults(array);
    const detail = (await readSampleDetail(file, file.rows[2]!))!;
    expect(
      detail.parts.find((part) => part.label === 'doc')?.kind === 'text' && detail.parts[0],
    ).toMatchObject({
      label: 'doc',
      text: expect.stringContaining('boolq question 2'),
    });
  });

  it('compare never pairs two tasks silently: named, they are refused; unnamed, the line says the names are not known', async () => {
    const { code, stderr } = await cli(['compare', lined, array]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /different benchmarks: A .* is lm-evaluation-harness task 'winogrande' \(the file name <model_args>_<task> and the tasks of results\.json\), B .* is lm-evaluation-harness task 'boolq'/,
    );
    const date = '2024-06-01T00-00-00.000000';
    const bias = write(
      `dev2/samples_bias_classification_${date}.json`,
      lines(samples('bias', WINOGRANDE, { modern: true })),
    );
    const stereotype = write(
      `dev2/samples_stereotype_classification_${date}.json`,
      lines(samples('stereotype', BOOLQ, { modern: true })),
    );
    const named = await cli(['compare', bias, stereotype]);
    expect(named.code).toBe(1);
    expect(named.stderr).toMatch(/task 'bias_classification' .*task 'stereotype_classification'/);
    // no name and no results file: one line says so, naming both files
    const a = write('anon/a.jsonl', lines(samples('a', WINOGRANDE, { modern: true })));
    const b = write('anon/b.jsonl', lines(samples('b', BOOLQ, { modern: true })));
    const anonymous = await cli(['compare', a, b, '--reps', '200']);
    expect(anonymous.code).toBe(0);
    expect(anonymous.stdout).toMatch(
      /^benchmark: neither file records its task name \(lm-evaluation-harness \(no task name recorded\), both\), so pairing by task id assumes both hold the same one \(A .*a\.jsonl, B .*b\.jsonl\)$/m,
    );
  });
});

describe("lm-evaluation-harness's results file read alone: its aggregates, and that it holds no samples", () => {
  const date = '2024-08-01T00-00-00.000000';
  const modern = write(
    `alone/results_${date}.json`,
    results({ winogrande: WINOGRANDE, boolq: BOOLQ }, { lm_eval_version: '0.4.3' }),
  );
  // lm-eval 0.3 (main.py --output_path): results, versions and config, metric names without a filter
  const v03 = write(
    'alone03/results.json',
    JSON.stringify(
      {
        results: { hellaswag: { acc: 0.2891, acc_stderr: 0.0045, acc_norm: 0.3146 } },
        versions: { hellaswag: 0 },
        config: { model: 'gpt2' },
      },
      null,
      2,
    ),
  );

  it('metrics: exit 1, one line with what it reports', async () => {
    const first = await cli(['metrics', modern]);
    expect(first.code).toBe(1);
    expect(first.stderr.trim().split('\n')).toHaveLength(1);
    expect(first.stderr).toMatch(
      /results_2024-08-01T00-00-00\.000000\.json: lm-evaluation-harness results without samples \(lm-eval 0\.4\.3, 2 task\(s\): winogrande acc,none 0\.6250; boolq acc,none 0\.6250\): these are aggregates, .*--log_samples writes/,
    );
    const old = await cli(['metrics', v03]);
    expect(old.code).toBe(1);
    expect(old.stderr).toMatch(
      /results without samples \(1 task\(s\): hellaswag acc 0\.2891, acc_norm 0\.3146\)/,
    );
    // on one line too
    const flat = write('alone-flat/results.json', JSON.stringify(JSON.parse(readFileSync(v03, 'utf8'))));
    expect((await cli(['metrics', flat])).stderr).toMatch(/results without samples \(1 task\(s\): hellaswag/);
  });

  it('view DIR lists it with the same line, beside the samples it reads', async () => {
    const dir = join(folder, 'alone');
    write(
      `alone/samples_winogrande_${date}.jsonl`,
      lines(samples('winogrande', WINOGRANDE, { modern: true })),
    );
    const out = join(folder, 'alone-page');
    const { code, stderr } = await cli(['view', dir, '--out', out]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(readFileSync(join(out, 'data.js'), 'utf8')).toMatch(
      /lm-evaluation-harness results without samples \(lm-eval 0\.4\.3/,
    );
  });
});

describe('an Inspect scorer whose metrics are its own', () => {
  it('says which reported metrics were not checked against the rows', async () => {
    const path = write(
      'custom.json',
      JSON.stringify(
        {
          version: 2,
          status: 'success',
          eval: { task: 'custom', model: 'mockllm/model' },
          results: {
            total_samples: 4,
            scores: [
              { name: 'judge', scorer: 'judge', metrics: { agreement: { name: 'agreement', value: 0.42 } } },
            ],
          },
          samples: [1, 2, 3, 4].map((id) => ({ id, epoch: 1, scores: { judge: { value: 'C' } } })),
        },
        null,
        2,
      ),
    );
    const report = await metricsJson(path);
    expect(report.meanAccuracy.estimate).toBe(1);
    expect(report.notes.join('\n')).toMatch(
      /results\.scores\['judge'\] reports 'agreement' 0\.42, not checked against the rows: only accuracy, mean and stderr are recomputed here, and the log reports none of them for this scorer/,
    );
    const text = await cli(['metrics', path, '--reps', '200']);
    expect(text.stdout).toMatch(/^note: results\.scores\['judge'\] reports 'agreement' 0\.42, not checked/m);
  });
});
