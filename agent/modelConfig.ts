/**
 * The policy network: a small causal transformer, GPT-2 style (Radford et al. 2019; nanoGPT's
 * model.py): learned token and absolute position embeddings, nLayers pre-LayerNorm blocks
 * (x += attn(ln1(x)); x += mlp(ln2(x))), a final LayerNorm and a separate (untied) output head
 * with a bias. The MLP uses ReLU rather than GELU: ReLU fuses into the matMul kernel on wasm and
 * tfjs has no GELU op. Dropout is left out (RL fine-tuning of a 158k model does not need it, and
 * it would make sampling and training disagree).
 */
export interface ModelConfig {
  vocabSize: number;
  contextLength: number;
  dModel: number;
  nHeads: number;
  nLayers: number;
  dFF: number;
}

/** The chapter's target size: about 158,000 parameters (GYM.md section 6). */
export const TARGET_PARAMETERS = 158_000;

/**
 * Exact parameter count:
 *   V*d (tokens) + ctx*d (positions)
 *   + L * (2d ln1 + 3d^2+3d qkv + d^2+d proj + 2d ln2 + d*f+f fc1 + f*d+d fc2)
 *   + 2d (final LayerNorm) + d*V + V (head).
 */
export function countParameters(cfg: ModelConfig): number {
  const { vocabSize: v, contextLength: ctx, dModel: d, nLayers: layers, dFF: f } = cfg;
  const perLayer = 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (d * f + f) + (f * d + d);
  return v * d + ctx * d + layers * perLayer + 2 * d + d * v + v;
}

/**
 * contextLength 128, dModel 64, 4 heads, 2 layers, and the multiple of 8 for dFF that brings the
 * parameter count closest to 158,000 for this vocabulary (e.g. vocab 250 -> dFF 320, 157,050).
 */
export function defaultModelConfig(vocabSize: number): ModelConfig {
  if (!Number.isInteger(vocabSize) || vocabSize < 2)
    throw new RangeError(`defaultModelConfig: vocabSize must be an integer >= 2, got ${vocabSize}`);
  const base = { vocabSize, contextLength: 128, dModel: 64, nHeads: 4, nLayers: 2 };
  let best = { ...base, dFF: 8 };
  for (let dFF = 8; dFF <= 8192; dFF += 8) {
    const candidate = { ...base, dFF };
    if (
      Math.abs(countParameters(candidate) - TARGET_PARAMETERS) <
      Math.abs(countParameters(best) - TARGET_PARAMETERS)
    )
      best = candidate;
  }
  return best;
}

/** Variable names and shapes in their fixed order (the checkpoint order). */
export function variableSpecs(cfg: ModelConfig): Array<{ name: string; shape: number[] }> {
  const { vocabSize: v, contextLength: ctx, dModel: d, nLayers, dFF: f } = cfg;
  const specs: Array<{ name: string; shape: number[] }> = [
    { name: 'wte', shape: [v, d] },
    { name: 'wpe', shape: [ctx, d] },
  ];
  for (let layer = 0; layer < nLayers; layer++) {
    const p = `h${layer}`;
    specs.push(
      { name: `${p}.ln1.gain`, shape: [d] },
      { name: `${p}.ln1.bias`, shape: [d] },
      { name: `${p}.attn.wqkv`, shape: [d, 3 * d] },
      { name: `${p}.attn.bqkv`, shape: [3 * d] },
      { name: `${p}.attn.wo`, shape: [d, d] },
      { name: `${p}.attn.bo`, shape: [d] },
      { name: `${p}.ln2.gain`, shape: [d] },
      { name: `${p}.ln2.bias`, shape: [d] },
      { name: `${p}.mlp.w1`, shape: [d, f] },
      { name: `${p}.mlp.b1`, shape: [f] },
      { name: `${p}.mlp.w2`, shape: [f, d] },
      { name: `${p}.mlp.b2`, shape: [d] },
    );
  }
  specs.push(
    { name: 'lnf.gain', shape: [d] },
    { name: 'lnf.bias', shape: [d] },
    { name: 'head.w', shape: [d, v] },
    { name: 'head.b', shape: [v] },
  );
  return specs;
}

export function sizeOf(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Throws a RangeError naming the first field that is not a positive integer, or dModel not divisible by nHeads. */
export function validateConfig(cfg: ModelConfig): void {
  for (const key of ['vocabSize', 'contextLength', 'dModel', 'nHeads', 'nLayers', 'dFF'] as const) {
    if (!Number.isInteger(cfg[key]) || cfg[key] < 1)
      throw new RangeError(`ModelConfig.${key} must be a positive integer, got ${cfg[key]}`);
  }
  if (cfg.dModel % cfg.nHeads !== 0)
    throw new RangeError(`ModelConfig: dModel ${cfg.dModel} is not divisible by nHeads ${cfg.nHeads}`);
}
