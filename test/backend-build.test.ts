import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from './support/child.ts';

// Without WebAssembly SIMD tfjs loads its wasm build without SIMD, which trains other checkpoints
// from the same seed: every record names the build with the backend, and `train` says so. Node 20
// cannot be started without SIMD; test/support/no-wasm-simd.mjs plays such a runtime by failing
// the SIMD probe tfjs runs (the worker threads inherit the preload).
const ROOT = join(import.meta.dirname, '..');
const NO_SIMD = ['--import', join(ROOT, 'test', 'support', 'no-wasm-simd.mjs')];
const runs = mkdtempSync(join(tmpdir(), 'tinyagent-backend-build-'));

const node = (args: string[]) =>
  spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
const probe = (preload: string[]) =>
  JSON.parse(
    node([...preload, '--import', 'tsx', join(ROOT, 'test', 'support', 'backend-probe.ts')]).stdout,
  ) as {
    backend: string;
    productKernelProblem: string | null;
  };
/** A 4-step behaviour cloning of seed 0 on wasm into runs/NAME; its stderr. */
const train = (name: string, preload: string[]) =>
  node([
    ...preload,
    BIN,
    'train',
    '--steps',
    '0',
    '--bc-steps',
    '4',
    '--runs-dir',
    runs,
    '--name',
    name,
    '--backend',
    'wasm',
  ]);
const manifest = (name: string) =>
  JSON.parse(readFileSync(join(runs, name, 'step-0', 'manifest.json'), 'utf8')) as {
    backend: string;
    checksum: string;
  };

describe('the wasm build, SIMD or not, is recorded with the backend', () => {
  it('recordedBackend names the build; the product kernel (SIMD code) is off without SIMD', () => {
    expect(probe([])).toMatchObject({ backend: 'wasm', productKernelProblem: null });
    expect(probe(NO_SIMD)).toEqual(
      expect.objectContaining({
        backend: 'wasm-no-simd',
        productKernelProblem: 'WebAssembly SIMD is not available, and the product kernel is SIMD code',
      }),
    );
  }, 120_000);

  it('train without SIMD says its numbers differ and records wasm-no-simd; the checkpoint differs from the SIMD one', () => {
    const simd = train('simd', []);
    expect(simd.status).toBe(0);
    const noSimd = train('no-simd', NO_SIMD);
    expect(noSimd.status).toBe(0);
    expect(noSimd.stderr).not.toContain('the same numbers');
    expect(noSimd.stderr).toContain(
      "no WebAssembly SIMD: tfjs runs its wasm build without SIMD, whose numbers differ from the SIMD build's (other checkpoints for the same seed; recorded as backend wasm-no-simd)",
    );
    expect(noSimd.stderr).toMatch(/^training .* on backend wasm-no-simd \(seed 0\)$/m);
    expect(manifest('simd').backend).toBe('wasm');
    expect(manifest('no-simd').backend).toBe('wasm-no-simd');
    expect(manifest('no-simd').checksum).not.toBe(manifest('simd').checksum);
    const start = readFileSync(join(runs, 'no-simd', 'log.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"run/start"'))
      .map((line) => JSON.parse(line) as { backend: string });
    expect(start.map((record) => record.backend)).toEqual(['wasm-no-simd']);
    expect(JSON.parse(readFileSync(join(runs, 'no-simd', 'summary.json'), 'utf8')).backend).toBe(
      'wasm-no-simd',
    );
    // an evaluation's provenance too
    const out = join(runs, 'no-simd-eval.jsonl');
    const evaluation = node([
      ...NO_SIMD,
      BIN,
      'eval',
      '--checkpoint',
      join(runs, 'no-simd', 'step-0'),
      '--episodes',
      '1',
      '--backend',
      'wasm',
      '--out',
      out,
    ]);
    expect(evaluation.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/"backend":"wasm-no-simd"/);
  }, 300_000);

  it('node --jitless: eval --backend wasm says in one line what failed (Node adds its own warning)', () => {
    const result = node([
      '--jitless',
      BIN,
      'eval',
      '--backend',
      'wasm',
      '--checkpoint',
      join(runs, 'simd', 'step-0'),
      '--episodes',
      '1',
    ]);
    expect(result.status).toBe(1);
    const ours = result.stderr
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('Warning: disabling flag'));
    expect(ours).toEqual([
      "tinyagent eval: backend 'wasm' could not start: this Node has no WebAssembly (node --jitless turns it off); run node without --jitless, or choose TINYAGENT_BACKEND=cpu",
    ]);
  }, 120_000);
});
