import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ModelConfig } from '../agent/index.ts';
import { InputError } from '../lib/errors.ts';

/** The Pythons tried, in order, when `--python` names none: the one on PATH, then Debian's (where python3-torch installs). */
const PYTHONS = ['python3', '/usr/bin/python3'] as const;

/**
 * The Python that `npm run bench -- --torch` runs the PyTorch reference with: `python` when
 * given, else the first of `PYTHONS` that imports torch. None: an InputError (exit 1) naming the
 * package to install.
 */
export function findTorchPython(python?: string): string {
  const candidates = python !== undefined ? [python] : PYTHONS;
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['-c', 'import torch'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  throw new InputError(
    `--torch: no Python with PyTorch (tried ${candidates.join(', ')}); install python3-torch (apt-get install python3-torch) or name a Python with --python`,
  );
}

/** What the reference says about itself. */
export interface TorchInfo {
  torch: string;
  threads: number;
  parameters: number;
}

/**
 * bench/torch/step.py running in its own process: the policy of agent/model.ts in PyTorch, the
 * same rows x length batch of random tokens, forward + backward + clip + Adam. `step()` times one
 * step there (the time Python measures, without the pipe's round trip), so that the bench can
 * alternate it with its own step.
 */
export class TorchStep {
  private readonly lines: AsyncIterator<string>;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly info: TorchInfo,
    lines: AsyncIterator<string>,
  ) {
    this.lines = lines;
  }

  static async start(
    python: string,
    config: ModelConfig,
    { rows, length, threads }: { rows: number; length: number; threads: number },
  ): Promise<TorchStep> {
    const script = fileURLToPath(new URL('./torch/step.py', import.meta.url));
    const child = spawn(
      python,
      [script, JSON.stringify(config), String(rows), String(length), String(threads)],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await lines.next();
    const info =
      first.done === true ? undefined : (JSON.parse(first.value) as Partial<TorchInfo> & { error?: string });
    if (info === undefined || info.error !== undefined || info.parameters === undefined) {
      child.kill();
      const reason = info?.error ?? (stderr.trim().split('\n').pop() || 'it printed nothing');
      throw new InputError(`--torch: bench/torch/step.py did not start under ${python}: ${reason}`);
    }
    return new TorchStep(child, info as TorchInfo, lines);
  }

  /** Milliseconds of one step. */
  async step(): Promise<number> {
    this.child.stdin.write('step\n');
    const next = await this.lines.next();
    if (next.done === true) throw new InputError('--torch: the PyTorch reference ended before its step');
    return (JSON.parse(next.value) as { ms: number }).ms;
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end('quit\n');
    await exited;
  }
}
