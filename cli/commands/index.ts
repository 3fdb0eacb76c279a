import type { Command } from '../args.ts';

/**
 * Every subcommand, loaded on demand so that `tinyagent interval` does not pay for TensorFlow.
 * Each module exports `command`.
 */
export const commandLoaders: Record<string, () => Promise<Command>> = {
  canary: async () => (await import('./canary.ts')).command,
  tasks: async () => (await import('./tasks.ts')).command,
  play: async () => (await import('./play.ts')).command,
  metrics: async () => (await import('./metrics.ts')).command,
  interval: async () => (await import('./interval.ts')).command,
  passk: async () => (await import('./passk.ts')).command,
  compare: async () => (await import('./compare.ts')).command,
  diagnose: async () => (await import('./diagnose.ts')).command,
  power: async () => (await import('./power.ts')).command,
  aggregate: async () => (await import('./aggregate.ts')).command,
  train: async () => (await import('./train.ts')).command,
  eval: async () => (await import('./eval.ts')).command,
  probe: async () => (await import('./probe.ts')).command,
  bench: async () => (await import('./bench.ts')).command,
  study: async () => (await import('./study/index.ts')).command,
  review: async () => (await import('./review.ts')).command,
  view: async () => (await import('./view.ts')).command,
};
