import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ModelConfig } from '../agent/index.ts';
import { InputError } from '../lib/errors.ts';

/** The Pythons tried, in order, when `--python` names none: the one on PATH, then Debian's (where python3-torch installs). */
const PYTHONS = ['python3', '/usr/bin/python3'] as const;

/** The Python of the PyTorch reference (`npm run bench -- --torch`): `python`, else the first of `PYTHONS` that imports torch. */
export function findTorchPython(python?: string): string {
  const candidates = python !== undefined ? [python] : PYTHONS;
  for (const candidate of candidates)
    if (spawnSync(candidate, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0) return candidate;
  throw new InputError(
    `--torch: no Python with PyTorch (tried ${candidates.join(', ')}); install python3-torch (apt-get install python3-torch) or name a Python with --python`,
  );
}

/** What the reference says about itself. */
type TorchInfo = { torch: string; threads: number; parameters: number };

/**
 * bench/torch/step.py in its own process: our policy in PyTorch on the same batch shape, forward
 * + backward + clip + Adam; `step()` gives the milliseconds Python measures for one step.
 */
export async function startTorchStep(
  python: string,
  config: ModelConfig,
  { rows, length, threads }: { rows: number; length: number; threads: number },
) {
  const script = fileURLToPath(new URL('./torch/step.py', import.meta.url));
  const child = spawn(python, [script, JSON.stringify(config), `${rows}`, `${length}`, `${threads}`]);
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
  return {
    info: info as TorchInfo,
    async step(): Promise<number> {
      child.stdin.write('step\n');
      const next = await lines.next();
      if (next.done === true) throw new InputError('--torch: the PyTorch reference ended before its step');
      return (JSON.parse(next.value) as { ms: number }).ms;
    },
    async close(): Promise<void> {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end('quit\n');
      await exited;
    },
  };
}
