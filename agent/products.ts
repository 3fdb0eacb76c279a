import * as tf from '@tensorflow/tfjs';
import wabtInit from 'wabt';

/**
 * Float32 products on the wasm backend by our own SIMD kernel, bit for bit what XNNPack gives.
 *
 * Why: tfjs-backend-wasm's products (XNNPack's GEMM, and its depthwise convolution for
 * attention's many small products) run at 27-30 and about 8 GFLOP/s on one core here. A plain
 * register-tiled kernel (4 rows x 8 columns of accumulators, one A value splatted per row and k)
 * runs the 2-D products 1.1-1.3x faster. It also reads its operands through strides, so a
 * transposed operand, or one head's rows inside a [B*T, C] activation, is read in place: the
 * gradients and attention need almost no transposes (docs/MODEL.md, "Performance (wasm)").
 *
 * Why the same bits: XNNPack's f32 GEMM and depthwise convolution keep one accumulator per
 * output, start it at the bias (0 without one), add the products in order of k with a separate
 * multiply and add (wasm SIMD has no fused multiply-add), and clamp at the end for ReLU. This
 * kernel does exactly that, so every output rounds the same way; `test/agent-products.test.ts`
 * compares them bit for bit. A product split along k stores its partial sums and reloads them
 * exactly, so blocking does not change the order either, and neither does the layout.
 *
 * The kernel runs in the tfjs wasm module's own memory (imported by our module), on the tensors'
 * buffers in place, as a registered tfjs kernel (`TinyAgentProduct`), so that tfjs tracks its
 * output like any other tensor. The WebAssembly is written below as text and assembled at start
 * by wabt, the WebAssembly Binary Toolkit.
 *
 * The same module holds the training step's optimizer arithmetic (train/optimizer.ts): Adam's
 * update of a variable in one pass (`adamUpdate`, the tfjs kernel `TinyAgentAdam`) and the
 * clip's sum of squares (`sumOfSquares`), each the same bits as the tfjs ops they replace.
 */

/** Column widths of the tile kernels: two SIMD vectors, one, and a scalar tail. */
const WIDTHS = [8, 4, 1] as const;
/** Row counts of the tile kernels: four rows, and a one-row tail. */
const ROWS = [4, 1] as const;

/**
 * The WAT text of one tile kernel, `rows` x `width` accumulators. It computes `count` products
 * one after another (a, b and c step by sa, sb, sc bytes), each over a block of `rowCount` x
 * `colCount` outputs (multiples of the tile), by rows of tiles or (columnsOuter) by columns.
 * Byte addresses: A(i, k) at a + i*ai + k*ak, B(k, j) at b + k*bk + j*bj (8 columns from there
 * are contiguous), C(i, j) at c + i*cs + 4j, bias(j) at bias + 4j. init: 0 starts at zero, 1 at
 * the bias, 2 at C (a later block of k); 3 starts at zero and adds C at the end (C += this
 * block's sum, as tfjs's blocked batched matMul adds). relu: clamp at 0 at the end (XNNPack's
 * `pmax(0, x)`).
 */
function tileKernel(rows: number, width: number, columnsOuter: boolean): string {
  const vectors = Math.floor(width / 4); // 0 for the scalar tail
  const scalar = vectors === 0;
  const type = scalar ? 'f32' : 'v128';
  const perRow = Math.max(vectors, 1);
  const acc = (r: number, v: number) => `$c${r}_${v}`;
  const load = (addr: string, v: number) =>
    scalar ? `(f32.load ${addr})` : `(v128.load offset=${16 * v} ${addr})`;
  const store = (addr: string, v: number, value: string) =>
    scalar ? `(f32.store ${addr} ${value})` : `(v128.store offset=${16 * v} ${addr} ${value})`;
  const zero = scalar ? '(f32.const 0)' : '(v128.const i32x4 0 0 0 0)';
  const [add, mul] = scalar ? ['f32.add', 'f32.mul'] : ['f32x4.add', 'f32x4.mul'];
  const clamp = (x: string) =>
    scalar ? `(select ${x} (f32.const 0) (f32.gt ${x} (f32.const 0)))` : `(f32x4.pmax ${zero} ${x})`;
  const splat = (addr: string) => (scalar ? `(f32.load ${addr})` : `(v128.load32_splat ${addr})`);
  const rowAddress = (r: number) => `(i32.add (local.get $pc) (i32.mul (i32.const ${r}) (local.get $cs)))`;
  const each = (f: (r: number, v: number) => string) =>
    Array.from({ length: rows }, (_, r) => Array.from({ length: perRow }, (_, v) => f(r, v))).flat();
  const step = (index: '$i' | '$j') =>
    index === '$j'
      ? `(i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const ${width}))) (local.get $colCount))`
      : `(i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const ${rows}))) (local.get $rowCount))`;
  const [outer, inner] = columnsOuter ? (['$j', '$i'] as const) : (['$i', '$j'] as const);
  return [
    `(func (export "tile${rows}x${width}${columnsOuter ? 'c' : ''}")`,
    '(param $a i32) (param $ai i32) (param $ak i32) (param $b i32) (param $bk i32) (param $bj i32)',
    '(param $c i32) (param $cs i32) (param $bias i32) (param $rowCount i32) (param $colCount i32)',
    '(param $K i32) (param $init i32) (param $relu i32) (param $count i32) (param $sa i32) (param $sb i32) (param $sc i32)',
    `(local $i i32) (local $j i32) (local $k i32) (local $pb i32) (local $pc i32) (local $av ${type})`,
    Array.from({ length: rows }, (_, r) => `(local $pa${r} i32)`).join(' '),
    each((r, v) => `(local ${acc(r, v)} ${type})`).join(' '),
    Array.from({ length: perRow }, (_, v) => `(local $b${v} ${type})`).join(' '),
    '(if (i32.or (i32.or (i32.eqz (local.get $rowCount)) (i32.eqz (local.get $colCount))) (i32.or (i32.eqz (local.get $K)) (i32.eqz (local.get $count)))) (then (return)))',
    '(loop $items',
    `(local.set ${outer} (i32.const 0))`,
    '(loop $outer',
    `(local.set ${inner} (i32.const 0))`,
    '(loop $tiles',
    '(local.set $pc (i32.add (i32.add (local.get $c) (i32.mul (local.get $i) (local.get $cs))) (i32.shl (local.get $j) (i32.const 2))))',
    // Starting values: C's partial sums, the bias, or zero.
    '(if (i32.eq (local.get $init) (i32.const 2)) (then',
    ...each((r, v) => `(local.set ${acc(r, v)} ${load(rowAddress(r), v)})`),
    ') (else (if (i32.eq (local.get $init) (i32.const 1)) (then',
    ...Array.from(
      { length: perRow },
      (_, v) =>
        `(local.set $b${v} ${load('(i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2)))', v)})`,
    ),
    ') (else',
    ...Array.from({ length: perRow }, (_, v) => `(local.set $b${v} ${zero})`),
    '))',
    ...each((r, v) => `(local.set ${acc(r, v)} (local.get $b${v}))`),
    '))',
    // The k loop: B's vectors at this k, then each row's A value times them, k in order.
    ...Array.from(
      { length: rows },
      (_, r) =>
        `(local.set $pa${r} (i32.add (local.get $a) (i32.mul (i32.add (local.get $i) (i32.const ${r})) (local.get $ai))))`,
    ),
    '(local.set $pb (i32.add (local.get $b) (i32.mul (local.get $j) (local.get $bj))))',
    '(local.set $k (local.get $K))',
    '(loop $depth',
    ...Array.from({ length: perRow }, (_, v) => `(local.set $b${v} ${load('(local.get $pb)', v)})`),
    ...Array.from({ length: rows }, (_, r) => [
      `(local.set $av ${splat(`(local.get $pa${r})`)})`,
      ...Array.from(
        { length: perRow },
        (_, v) =>
          `(local.set ${acc(r, v)} (${add} (local.get ${acc(r, v)}) (${mul} (local.get $av) (local.get $b${v}))))`,
      ),
      `(local.set $pa${r} (i32.add (local.get $pa${r}) (local.get $ak)))`,
    ]).flat(),
    '(local.set $pb (i32.add (local.get $pb) (local.get $bk)))',
    '(br_if $depth (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))',
    '(if (i32.eq (local.get $init) (i32.const 3)) (then',
    ...each((r, v) => `(local.set ${acc(r, v)} (${add} ${load(rowAddress(r), v)} (local.get ${acc(r, v)})))`),
    '))',
    '(if (local.get $relu) (then',
    ...each((r, v) => `(local.set ${acc(r, v)} ${clamp(`(local.get ${acc(r, v)})`)})`),
    '))',
    ...each((r, v) => store(rowAddress(r), v, `(local.get ${acc(r, v)})`)),
    `(br_if $tiles ${step(inner)}))`,
    `(br_if $outer ${step(outer)}))`,
    '(local.set $a (i32.add (local.get $a) (local.get $sa)))',
    '(local.set $b (i32.add (local.get $b) (local.get $sb)))',
    '(local.set $c (i32.add (local.get $c) (local.get $sc)))',
    '(br_if $items (local.tee $count (i32.sub (local.get $count) (i32.const 1)))))',
    ')',
  ].join('\n');
}

/**
 * Copies B's first 8*strips columns into panels: strip s holds B(k, 8s..8s+7) for k = 0..K-1 one
 * after another, so the kernel reads it as one stream. (B's own rows, 256 bytes apart for 64
 * columns, fall into few cache sets and evict each other.) Only copies: no value changes.
 */
const PACK = `(func (export "pack8") (param $b i32) (param $bk i32) (param $p i32) (param $K i32) (param $strips i32)
(local $s i32) (local $k i32) (local $pb i32)
(if (i32.or (i32.eqz (local.get $strips)) (i32.eqz (local.get $K))) (then (return)))
(loop $strip
(local.set $pb (i32.add (local.get $b) (i32.shl (local.get $s) (i32.const 5))))
(local.set $k (local.get $K))
(loop $row
(v128.store (local.get $p) (v128.load (local.get $pb)))
(v128.store offset=16 (local.get $p) (v128.load offset=16 (local.get $pb)))
(local.set $p (i32.add (local.get $p) (i32.const 32)))
(local.set $pb (i32.add (local.get $pb) (local.get $bk)))
(br_if $row (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
(br_if $strip (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $strips)))))`;

/**
 * The sum of squares of n float32 values at p, added one after another from 0 in float32: what
 * tfjs's `sum(square(x))` gives on wasm (its Sum kernel is a plain loop in order).
 */
const SUM_SQUARES = `(func (export "sumSquares") (param $p i32) (param $n i32) (result f32)
(local $s f32) (local $x f32) (local $end i32)
(if (i32.eqz (local.get $n)) (then (return (f32.const 0))))
(local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
(loop $each
(local.set $x (f32.load (local.get $p)))
(local.set $s (f32.add (local.get $s) (f32.mul (local.get $x) (local.get $x))))
(br_if $each (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 4))) (local.get $end))))
(local.get $s))`;

/** The scalar operands of one Adam update (`adamUpdate`), in the kernel's parameter order after the five addresses and the count. */
const ADAM_SCALARS = [
  'scale',
  'beta1',
  'oneMinusBeta1',
  'beta2',
  'oneMinusBeta2',
  'debias1',
  'debias2',
  'epsilon',
  'step',
] as const;

/**
 * One Adam update of n values, four at a time and then one at a time (each lane rounds as the
 * scalar would), writing the new weights at out and the moments over m and v:
 *   g' = g·scale, m' = m·β1 + g'·(1-β1), v' = v·β2 + (g'·g')·(1-β2),
 *   out = ((m'/debias1) / (sqrt(v'/debias2) + ε))·step + w,
 * each operation rounded to float32 in that order: tf.train.adam's ops (tfjs-core 4.22,
 * adam_optimizer.ts) after the clip's `mul(g, scale)`, so the same bits.
 */
function adamKernel(): string {
  const params = ADAM_SCALARS.map((name) => `(param $${name} f32)`).join(' ');
  const splats = ADAM_SCALARS.map((name) => `(local $${name}4 v128)`).join(' ');
  const setSplats = ADAM_SCALARS.map(
    (name) => `(local.set $${name}4 (f32x4.splat (local.get $${name})))`,
  ).join('\n');
  // The update in one type: f32x4 lanes on v128 ('4'), or f32 scalars ('').
  const update = (lanes: '4' | '') => {
    const [op, load, store, size] =
      lanes === '4' ? ['f32x4', 'v128.load', 'v128.store', 16] : ['f32', 'f32.load', 'f32.store', 4];
    const k = (name: string) => `(local.get $${name}${lanes})`;
    return `(local.set $gv${lanes} (${op}.mul (${load} (local.get $g)) ${k('scale')}))
(local.set $mv${lanes} (${op}.add (${op}.mul (${load} (local.get $m)) ${k('beta1')}) (${op}.mul (local.get $gv${lanes}) ${k('oneMinusBeta1')})))
(local.set $vv${lanes} (${op}.add (${op}.mul (${load} (local.get $v)) ${k('beta2')}) (${op}.mul (${op}.mul (local.get $gv${lanes}) (local.get $gv${lanes})) ${k('oneMinusBeta2')})))
(${store} (local.get $m) (local.get $mv${lanes}))
(${store} (local.get $v) (local.get $vv${lanes}))
(${store} (local.get $out) (${op}.add (${op}.mul (${op}.div (${op}.div (local.get $mv${lanes}) ${k('debias1')}) (${op}.add (${op}.sqrt (${op}.div (local.get $vv${lanes}) ${k('debias2')})) ${k('epsilon')})) ${k('step')}) (${load} (local.get $w))))
(local.set $w (i32.add (local.get $w) (i32.const ${size})))
(local.set $g (i32.add (local.get $g) (i32.const ${size})))
(local.set $m (i32.add (local.get $m) (i32.const ${size})))
(local.set $v (i32.add (local.get $v) (i32.const ${size})))
(local.set $out (i32.add (local.get $out) (i32.const ${size})))
(local.set $n (i32.sub (local.get $n) (i32.const ${lanes === '4' ? 4 : 1})))`;
  };
  return `(func (export "adam") (param $w i32) (param $g i32) (param $m i32) (param $v i32) (param $out i32) (param $n i32) ${params}
${splats} (local $gv4 v128) (local $mv4 v128) (local $vv4 v128) (local $gv f32) (local $mv f32) (local $vv f32)
${setSplats}
(block $vectors (loop $four
(br_if $vectors (i32.lt_u (local.get $n) (i32.const 4)))
${update('4')}
(br $four)))
(block $done (loop $one
(br_if $done (i32.eqz (local.get $n)))
${update('')}
(br $one))))`;
}

/** The whole module's WAT text: the tfjs module's memory, imported, one kernel per tile shape and order, the packer, and Adam's two loops. */
export function productsModuleText(): string {
  const kernels = [false, true].flatMap((columnsOuter) =>
    ROWS.flatMap((rows) => WIDTHS.map((width) => tileKernel(rows, width, columnsOuter))),
  );
  return [
    '(module',
    '(import "tfjs" "memory" (memory 1))',
    ...kernels,
    PACK,
    SUM_SQUARES,
    adamKernel(),
    ')',
  ].join('\n');
}

type Tile = (...args: number[]) => void;

type WasmBackend = {
  wasm: { asm?: { memory?: unknown }; _malloc(bytes: number): number; _free(pointer: number): void };
  dataIdMap: { get(id: object): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
};

let module:
  | { tiles: Map<string, Tile>; pack8: Tile; sumSquares: (p: number, n: number) => number; adam: Tile }
  | undefined;
let enabled = true;

export const PRODUCT_KERNEL = 'TinyAgentProduct';

/**
 * Assembles the kernels, instantiates them over the running wasm backend's memory and registers
 * the tfjs kernel. Called by `initBackend` once wasm is running; idempotent.
 */
export async function installProducts(): Promise<void> {
  if (module !== undefined) return;
  const backend = tf.backend() as unknown as WasmBackend;
  const memory = backend.wasm.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory))
    throw new Error(
      'the wasm backend exposes no WebAssembly.Memory (asm.memory): another tfjs-backend-wasm build?',
    );
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('products.wat', productsModuleText(), { simd: true });
  let binary: Uint8Array<ArrayBuffer>;
  try {
    binary = new Uint8Array(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(binary), { tfjs: { memory } });
  const tiles = new Map<string, Tile>();
  for (const order of ['', 'c'])
    for (const rows of ROWS)
      for (const width of WIDTHS)
        tiles.set(`${rows}x${width}${order}`, exports[`tile${rows}x${width}${order}`] as Tile);
  module = {
    tiles,
    pack8: exports['pack8'] as Tile,
    sumSquares: exports['sumSquares'] as (p: number, n: number) => number,
    adam: exports['adam'] as Tile,
  };
  tf.registerKernel({
    kernelName: PRODUCT_KERNEL,
    backendName: 'wasm',
    kernelFunc: productKernel as unknown as tf.KernelFunc,
  });
  tf.registerKernel({
    kernelName: ADAM_KERNEL,
    backendName: 'wasm',
    kernelFunc: adamUpdateKernel as unknown as tf.KernelFunc,
  });
}

export const ADAM_KERNEL = 'TinyAgentAdam';

/** The operands of `adamUpdate`, each rounded to float32 by the kernel. */
export type AdamScalars = Record<(typeof ADAM_SCALARS)[number], number>;

function adamUpdateKernel({
  inputs,
  backend,
  attrs,
}: {
  inputs: { w: tf.TensorInfo; g: tf.TensorInfo; m: tf.TensorInfo; v: tf.TensorInfo };
  backend: WasmBackend;
  attrs: AdamScalars;
}): tf.TensorInfo {
  const { w, g, m, v } = inputs;
  const offset = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId).memoryOffset;
  const out = backend.makeOutput(w.shape, 'float32');
  const n = w.shape.reduce((a, b) => a * b, 1);
  module!.adam(
    offset(w),
    offset(g),
    offset(m),
    offset(v),
    offset(out),
    n,
    ...ADAM_SCALARS.map((name) => attrs[name]),
  );
  return out;
}

/**
 * One Adam update on our kernel (`productsInstalled()` must hold): returns the new weights, and
 * overwrites the moments `m` and `v` in place, so they must be tensors no one else reads (the
 * optimizer's own). See `adamKernel` for the arithmetic, the same bits as tf.train.adam's.
 */
export function adamUpdate(
  w: tf.Tensor,
  g: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  scalars: AdamScalars,
): tf.Tensor {
  for (const [name, t] of [
    ['g', g],
    ['m', m],
    ['v', v],
  ] as const)
    if (t.size !== w.size || t.dtype !== 'float32' || w.dtype !== 'float32')
      throw new Error(`adamUpdate: ${name} is ${t.dtype} [${t.shape}], the weights ${w.dtype} [${w.shape}]`);
  return tf
    .engine()
    .runKernel(ADAM_KERNEL, { w, g, m, v }, scalars as unknown as tf.NamedAttrMap) as tf.Tensor;
}

/** sum(x²) over a float32 tensor on our kernel (`productsInstalled()` must hold), added in order: tfjs's `sum(square(x))` on wasm, bit for bit. */
export function sumOfSquares(x: tf.Tensor): number {
  if (x.dtype !== 'float32') throw new Error(`sumOfSquares: a ${x.dtype} tensor`);
  const backend = tf.backend() as unknown as WasmBackend;
  return module!.sumSquares(backend.dataIdMap.get(x.dataId).memoryOffset, x.size);
}

/**
 * Turns our kernel off (tfjs's own products again) or back on, to measure one against the other
 * in one process (`npm run bench`); the numbers are the same either way.
 */
export function useOwnProducts(on: boolean): void {
  enabled = on;
}

/** Whether the products run on our kernel: the wasm backend, the kernels installed and on. */
export function productsInstalled(): boolean {
  return enabled && module !== undefined && tf.getBackend() === 'wasm';
}

/**
 * The shape of a strided product, all strides in elements: for each batch item and each of its
 * heads, C(i, j) = bias(j) + sum_k A(i, k) * B(k, j), i < rows, k < depth, j < cols.
 * A(i, k) is a[aStrides · (batch, head, i, k)], B(k, j) is b[bStrides · (batch, head, k)] + j
 * (a row's columns contiguous), C(i, j) is out[cStrides · (batch, head, i)] + j.
 */
export interface ProductGeometry {
  rows: number;
  depth: number;
  cols: number;
  batch: number;
  heads: number;
  /** [batch, head, row, depth] */
  aStrides: [number, number, number, number];
  /** [batch, head, depth] */
  bStrides: [number, number, number];
  /** [batch, head, row] */
  cStrides: [number, number, number];
  outShape: number[];
}

type ProductAttrs = ProductGeometry & {
  relu: boolean;
  columnsOuter: boolean;
  kBlock: number;
  pack: boolean;
  /** Each later block of depth adds its own sum to C (init 3) instead of continuing C's (init 2). */
  blockSums: boolean;
};

function productKernel({
  inputs,
  backend,
  attrs,
}: {
  inputs: { a: tf.TensorInfo; b: tf.TensorInfo; bias?: tf.TensorInfo };
  backend: WasmBackend;
  attrs: ProductAttrs;
}): tf.TensorInfo {
  const { a, b, bias } = inputs;
  const { rows, depth, cols, batch, heads, aStrides, bStrides, cStrides, relu, columnsOuter, kBlock, pack } =
    attrs;
  const { tiles, pack8 } = module!;
  if (depth === 0) throw new Error(`${PRODUCT_KERNEL}: a product over an empty inner axis`);
  const offset = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId).memoryOffset;
  const out = backend.makeOutput(attrs.outShape, 'float32');
  const [aBatch, aHead, ai, ak] = aStrides.map((s) => 4 * s) as [number, number, number, number];
  const [bBatch, bHead, bk] = bStrides.map((s) => 4 * s) as [number, number, number];
  const [cBatch, cHead, cs] = cStrides.map((s) => 4 * s) as [number, number, number];
  const order = columnsOuter ? 'c' : '';
  const rows4 = rows - (rows % 4);
  const cols8 = cols - (cols % 8);
  const cols4 = cols - (cols % 4);
  const rowBlocks = [
    ['4', 0, rows4],
    ['1', rows4, rows - rows4],
  ] as const;
  const colBlocks = [
    ['8', 0, cols8],
    ['4', cols8, cols4 - cols8],
    ['1', cols4, cols - cols4],
  ] as const;
  // Panels of B's 8-column strips, for a single product (batch = heads = 1).
  const packing = pack && batch === 1 && heads === 1 && cols8 > 0;
  const panels = packing ? backend.wasm._malloc(4 * depth * cols8) >>> 0 : 0;
  try {
    for (let item = 0; item < batch; item++) {
      const pa = offset(a) + item * aBatch;
      const pb = offset(b) + item * bBatch;
      const pc = offset(out) + item * cBatch;
      if (packing) pack8(pb, bk, panels, depth, cols8 / 8);
      for (let k0 = 0; k0 < depth; k0 += kBlock) {
        const blockDepth = Math.min(kBlock, depth - k0);
        const init = k0 > 0 ? (attrs.blockSums ? 3 : 2) : bias === undefined ? 0 : 1;
        const clamp = relu && k0 + blockDepth === depth ? 1 : 0;
        for (const [rowTile, i0, rowCount] of rowBlocks)
          for (const [colTile, j0, colCount] of colBlocks) {
            // B(k, j): in a panel, strip j/8 at panels + j*4*depth, 32 bytes per k; else b's own rows.
            const [bFrom, bkStep, bjStep] =
              packing && colTile === '8' ? [panels + 32 * k0, 32, 4 * depth] : [pb + k0 * bk + 4 * j0, bk, 4];
            tiles.get(`${rowTile}x${colTile}${order}`)!(
              pa + i0 * ai + k0 * ak,
              ai,
              ak,
              bFrom,
              bkStep,
              bjStep,
              pc + i0 * cs + 4 * j0,
              cs,
              bias === undefined ? 0 : offset(bias) + 4 * j0,
              rowCount,
              colCount,
              blockDepth,
              init,
              clamp,
              heads,
              aHead,
              bHead,
              cHead,
            );
          }
      }
    }
  } finally {
    if (packing) backend.wasm._free(panels);
  }
  return out;
}

/**
 * A strided product on our kernel (`productsInstalled()` must hold): see `ProductGeometry`.
 * Depth is added in one pass, in order of k (XNNPack's GEMM and depthwise convolution), or with
 * `blockSums: n` as tfjs's batched matMul on wasm adds it: the sum of each block of n values of
 * k on its own, the blocks' sums added to the output in turn (48 in tfjs 4.22).
 */
export function stridedProduct(
  a: tf.Tensor,
  b: tf.Tensor,
  geometry: ProductGeometry,
  { blockSums }: { blockSums?: number } = {},
): tf.Tensor {
  const attrs: ProductAttrs = {
    ...geometry,
    relu: false,
    columnsOuter: false,
    kBlock: blockSums ?? Math.max(geometry.depth, 1),
    pack: false,
    blockSums: blockSums !== undefined,
  };
  return tf.engine().runKernel(PRODUCT_KERNEL, { a, b }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor;
}

/** Depth added per pass in a 2-D product: a block of B this deep stays in the core's caches. */
const K_BLOCK = 256;
/** The same for aᵀ · b (a weight gradient, depth = rows of the batch), by columns of tiles. */
const K_BLOCK_TRANSPOSED = 64;

/**
 * a · b (+ bias, ReLU'd if asked) for 2-D float32 tensors, or aᵀ · b with `transposeA` (a is
 * then [K, M]). On our kernel when `productsInstalled()`, else tfjs's own ops (on wasm, the
 * same bits).
 */
export function product(
  a: tf.Tensor2D,
  b: tf.Tensor2D,
  {
    bias,
    relu = false,
    transposeA = false,
  }: { bias?: tf.Tensor1D; relu?: boolean; transposeA?: boolean } = {},
): tf.Tensor2D {
  const [M, K] = transposeA ? [a.shape[1], a.shape[0]] : a.shape;
  const N = b.shape[1];
  if (b.shape[0] !== K)
    throw new Error(
      `product: inner sizes differ (${a.shape} · ${b.shape}${transposeA ? ', a transposed' : ''})`,
    );
  if (!productsInstalled()) {
    const left = transposeA ? tf.transpose(a) : a;
    if (bias === undefined && !relu) return tf.matMul(left, b);
    return tf.fused.matMul({
      a: left,
      b,
      ...(bias === undefined ? {} : { bias }),
      activation: relu ? 'relu' : 'linear',
    }) as tf.Tensor2D;
  }
  const attrs: ProductAttrs = {
    rows: M,
    depth: K,
    cols: N,
    batch: 1,
    heads: 1,
    aStrides: transposeA ? [0, 0, 1, M] : [0, 0, K, 1],
    bStrides: [0, 0, N],
    cStrides: [0, 0, N],
    outShape: [M, N],
    relu,
    columnsOuter: transposeA,
    kBlock: transposeA ? K_BLOCK_TRANSPOSED : K_BLOCK,
    pack: !transposeA,
    blockSums: false,
  };
  const inputs = bias === undefined ? { a, b } : { a, b, bias };
  return tf.engine().runKernel(PRODUCT_KERNEL, inputs, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}

/** The sum of x's rows [N, C] -> [C], each column added in order of the row (what 1ᵀ · x gives). */
export function columnSums(x: tf.Tensor2D): tf.Tensor1D {
  if (!productsInstalled()) return tf.sum(x, 0);
  return tf.tidy(
    () => tf.reshape(product(tf.ones([x.shape[0], 1]), x, { transposeA: true }), [-1]) as tf.Tensor1D,
  );
}
