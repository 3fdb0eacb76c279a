// The load for bench/train.ts's "beside a copy" figure (`besideCopy`): the bench's one-thread GRPO
// updates run over and over in a process of their own until the parent says stop.
import {
  initBackend,
  modelFromWeights,
  tokenizerFromWords,
  type BackendPreference,
  type ModelConfig,
} from '../agent/index.ts';
import { adam, oneThread, optimizerStep, type LossJob } from '../train/index.ts';

/** What the parent sends first: the agent, the job and the update's settings. */
export interface BesideWork {
  backend: BackendPreference;
  modelConfig: ModelConfig;
  words: string[];
  weights: Float32Array[];
  job: LossJob;
  epochs: number;
  learningRate: number;
  maxGradNorm: number;
}

// A parent that ends without saying stop takes the copy with it.
process.once('disconnect', () => process.exit(0));

process.once('message', (work: BesideWork) => {
  void (async () => {
    await initBackend({ preference: work.backend });
    const agent = {
      model: modelFromWeights(work.modelConfig, work.weights),
      tokenizer: tokenizerFromWords(work.words),
    };
    const compute = oneThread();
    let stop = false;
    process.once('message', () => {
      stop = true;
    });
    let rounds = 0;
    while (!stop) {
      const optimizer = adam(work.learningRate);
      for (let epoch = 0; epoch < work.epochs; epoch += 1)
        await optimizerStep(agent, optimizer, work.job, { compute, maxGradNorm: work.maxGradNorm });
      optimizer.dispose();
      rounds += 1;
      if (rounds === 1) process.send?.({ type: 'ready' });
      await new Promise((resolve) => setImmediate(resolve)); // lets the stop message in
    }
    process.send?.({ type: 'stopped', rounds }, () => process.exit(0));
  })().catch((error: unknown) => {
    process.stderr.write(`bench/beside.ts: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
});
