import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  backendFlag,
  boolFlag,
  printJson,
  stringFlag,
  switchFlag,
  UsageError,
  valueFlag,
  type Command,
} from '../args.ts';
import { BACKEND_PREFERENCES } from '../../agent/backend.ts';
import { noteMachine, outFlag, writeRecord } from '../measurementRecord.ts';
import { findTorchPython } from '../../bench/torchReference.ts';

/** The benchmark suites, in the order they print. Each module exports `run(say)`. */
const SUITES = ['gym', 'eval', 'io', 'model', 'train', 'study'] as const;
/** What runs without --only: all but study, which runs a study of 56 jobs (minutes; docs/STUDIES.md). */
const DEFAULT_SUITES = SUITES.filter((name) => name !== 'study');

type Figures = Record<string, number | string | Record<string, number | string>>;

interface BenchModule {
  run(say: (line: string) => void, options: { torchPython?: string | undefined }): Promise<Figures>;
}

export const command: Command = {
  name: 'bench',
  summary:
    'Measure speed and memory: env episodes/s, bootstrap time, memory of reading an Inspect log, model step time, sampling and rollout rates',
  usage:
    'tinyagent bench [--only gym,eval,io,model,train,study] [--torch [--python PYTHON]] [--out FILE] [--json]   (backend: TINYAGENT_BACKEND; io sizes: TINYAGENT_BENCH_IO_MB)',
  flags: {
    only: valueFlag(
      `comma-separated suites among ${SUITES.join(', ')}, each at most once (default all but study)`,
      { default: 'all' },
    ),
    out: valueFlag(
      'also write the figures, the command and the machine (cores, load) into this JSON file (results/bench.json is the one the docs quote)',
    ),
    json: switchFlag('print the figures as JSON on stdout'),
    torch: switchFlag(
      "train suite: also time the same training step in PyTorch on two threads (bench/torch/step.py; needs python3-torch), in turn with ours; the figures are the train suite's `torch` field",
    ),
    python: valueFlag(
      'the Python that runs the PyTorch reference (default: the first of python3, /usr/bin/python3 that imports torch)',
    ),
  },
  async run(args) {
    const only = stringFlag(args, 'only');
    const chosen = only === undefined ? [...DEFAULT_SUITES] : only.split(',').map((name) => name.trim());
    for (const [i, name] of chosen.entries()) {
      if (!(SUITES as readonly string[]).includes(name))
        throw new UsageError(`--only: unknown suite '${name}' (have ${SUITES.join(', ')})`);
      // Run twice, a suite would write its figures over its own first ones.
      if (chosen.indexOf(name) !== i) throw new UsageError(`--only: suite '${name}' is given twice`);
    }
    backendFlag(args, BACKEND_PREFERENCES, 'auto'); // a bad TINYAGENT_BACKEND is a usage error before any suite runs
    const out = outFlag(args);
    const json = boolFlag(args, 'json');
    const python = stringFlag(args, 'python');
    if (python !== undefined && !boolFlag(args, 'torch')) throw new UsageError('--python goes with --torch');
    if (boolFlag(args, 'torch') && !chosen.includes('train'))
      throw new UsageError('--torch times the training step: it needs the train suite (--only train)');
    // Python and PyTorch are optional: looked for only with --torch, before any suite runs.
    const torchPython = boolFlag(args, 'torch') ? findTorchPython(python) : undefined;
    const machine = noteMachine();
    const say = (line: string) => process.stderr.write(`${line}\n`);
    const figures: Record<string, Figures> = {};
    for (const name of chosen) {
      const path = fileURLToPath(new URL(`../../bench/${name}.ts`, import.meta.url));
      if (!existsSync(path)) continue;
      say(`== ${name}`);
      const suite = (await import(path)) as BenchModule;
      figures[name] = await suite.run(json ? say : (line) => process.stdout.write(`${line}\n`), {
        torchPython,
      });
    }
    if (out !== undefined) {
      writeRecord(out, 'bench', args, machine(), { figures });
      say(`wrote the figures to ${out}`);
    }
    if (json) printJson(figures);
  },
};
