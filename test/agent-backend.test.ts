import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it } from 'vitest';
import { activeBackend, initBackend } from '../agent/backend.ts';

const saved = process.env['TINYAGENT_BACKEND'];

afterEach(() => {
  if (saved === undefined) delete process.env['TINYAGENT_BACKEND'];
  else process.env['TINYAGENT_BACKEND'] = saved;
});

describe('backend selection', () => {
  it('TINYAGENT_BACKEND=cpu selects cpu for an automatic choice', async () => {
    process.env['TINYAGENT_BACKEND'] = 'cpu';
    expect(await initBackend()).toBe('cpu');
    expect(activeBackend()).toBe('cpu');
    expect(tf.getBackend()).toBe('cpu');
    expect(await initBackend({ preference: 'auto' })).toBe('cpu'); // idempotent
  });

  it('an explicit wasm choice starts wasm (checking setBackend actually switched)', async () => {
    expect(await initBackend({ preference: 'wasm' })).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
  });

  it('an unknown name is a clear error', async () => {
    process.env['TINYAGENT_BACKEND'] = 'gpu';
    await expect(initBackend()).rejects.toThrow(
      /TINYAGENT_BACKEND='gpu' is not a backend \(have auto, tensorflow, wasm, cpu\)/,
    );
    // @ts-expect-error: a wrong preference from untyped code
    await expect(initBackend({ preference: 'cuda' })).rejects.toThrow(/unknown backend 'cuda'/);
  });

  it('an explicit tensorflow choice that cannot load says why', async () => {
    let tfjsNodeInstalled = true;
    try {
      await import('@tensorflow/tfjs-node' as string);
    } catch {
      tfjsNodeInstalled = false;
    }
    if (tfjsNodeInstalled) {
      expect(await initBackend({ preference: 'tensorflow' })).toBe('tensorflow');
    } else {
      await expect(initBackend({ preference: 'tensorflow' })).rejects.toThrow(
        /backend 'tensorflow' could not start: .*tfjs-node/,
      );
    }
  });
});
