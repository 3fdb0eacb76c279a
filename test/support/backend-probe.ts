// Run as a child by test/backend-build.test.ts: starts the wasm backend and prints, as JSON, the
// backend as records name it, why the product kernel is off, and the sha256 of one product of
// seeded matrices (the bits a build computes).
import { createHash } from 'node:crypto';
import * as tf from '@tensorflow/tfjs';
import { initBackend, productKernelProblem, recordedBackend } from '../../agent/index.ts';

await initBackend({ preference: 'wasm' });
const product = tf.tidy(() =>
  tf
    .matMul(
      tf.randomUniform([64, 256], -1, 1, 'float32', 1),
      tf.randomUniform([256, 64], -1, 1, 'float32', 2),
    )
    .dataSync(),
);
process.stdout.write(
  `${JSON.stringify({
    backend: recordedBackend(),
    productKernelProblem: productKernelProblem() ?? null,
    product: createHash('sha256').update(Buffer.from(product.buffer)).digest('hex'),
  })}\n`,
);
