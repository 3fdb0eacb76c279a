/**
 * The WebAssembly text of our kernels, generated: register-tiled float32 products, a packer for
 * B's columns, the clip's sum of squares, Adam's update, elementwise add, sub and mul, a row
 * copy, and the row-wise kernels of LayerNorm and the softmaxes (./rowwise.ts). `kernels.wat`
 * beside this file is its output (`KERNELS_WAT`), committed so that a change to a kernel shows
 * as a diff one can read (`test/agent-kernels.test.ts` checks that this generator still writes
 * it byte for byte; `npm run kernels:wat` rewrites it). The module imports the tfjs wasm
 * module's memory and runs on its tensors' buffers in place (./install.ts).
 */
import { fileURLToPath } from 'node:url';

/** Where the generated WAT is committed, beside its generator (`npm run kernels:wat` rewrites it). */
export const KERNELS_WAT = fileURLToPath(new URL('./kernels.wat', import.meta.url));

/** How a tile kernel's accumulators start (its `init` operand). */
export const Init = {
  /** At zero: the first block of k of a product without a bias. */
  zero: 0,
  /** At the bias: the first block of k of a product with one. */
  bias: 1,
  /** At C's values: a later block of k that continues C's partial sums, in order of k. */
  continueC: 2,
} as const;

/** What a tile kernel does to its sums after the last block of k (its `relu` operand). */
export const Clamp = {
  /** Nothing. */
  none: 0,
  /** ReLU: clamp at 0 (XNNPack's `pmax(0, x)`: NaN and -0 give +0). */
  relu: 1,
} as const;

/** Column widths of the tile kernels: two SIMD vectors, one, and a scalar tail. */
export const WIDTHS = [8, 4, 1] as const;
/** Row counts of the tile kernels: four rows, and a one-row tail. */
export const ROWS = [4, 1] as const;

/**
 * The WAT text of one tile kernel, `rows` x `width` accumulators. It computes `count` products
 * one after another (a, b and c step by sa, sb, sc bytes), each over a block of `rowCount` x
 * `colCount` outputs (multiples of the tile), by rows of tiles or (columnsOuter) by columns.
 * Byte addresses: A(i, k) at a + i*ai + k*ak, B(k, j) at b + k*bk + j*bj (8 columns from there
 * are contiguous), C(i, j) at c + i*cs + 4j, bias(j) at bias + 4j. init is one of `Init`, relu one
 * of `Clamp`.
 */
function tileKernel(rows: number, width: number, columnsOuter: boolean, fused: boolean): string {
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
  // c + a·b: a multiply and an add, each rounded, or (fused, vectors only) one multiply-add.
  const multiplyAdd = (c: string, b: string) =>
    fused && !scalar
      ? `(f32x4.relaxed_madd (local.get $av) (local.get ${b}) (local.get ${c}))`
      : `(${add} (local.get ${c}) (${mul} (local.get $av) (local.get ${b})))`;
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
    `(if (i32.eq (local.get $init) (i32.const ${Init.continueC})) (then`,
    ...each((r, v) => `(local.set ${acc(r, v)} ${load(rowAddress(r), v)})`),
    `) (else (if (i32.eq (local.get $init) (i32.const ${Init.bias})) (then`,
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
        (_, v) => `(local.set ${acc(r, v)} ${multiplyAdd(acc(r, v), `$b${v}`)})`,
      ),
      `(local.set $pa${r} (i32.add (local.get $pa${r}) (local.get $ak)))`,
    ]).flat(),
    '(local.set $pb (i32.add (local.get $pb) (local.get $bk)))',
    '(br_if $depth (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))',
    // Any relu but Clamp.none (0) clamps.
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

/** The scalar operands of one Adam update (`adamUpdate`), in the kernel's parameter order after the five addresses and the weights' rows and width. */
export const ADAM_SCALARS = [
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
 * One Adam update of n = rows · C values (a row-wise kernel of ./rowwise.ts over the whole of w), four at a time and then one at a time (each lane rounds as the
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
  return `(func (export "adam") (param $w i32) (param $g i32) (param $m i32) (param $v i32) (param $out i32) (param $rows i32) (param $C i32) ${params}
${splats} (local $n i32) (local $gv4 v128) (local $mv4 v128) (local $vv4 v128) (local $gv f32) (local $mv f32) (local $vv f32)
(local.set $n (i32.mul (local.get $rows) (local.get $C)))
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

/** Copies `rows` rows of `bytes` bytes, each from src + r*srcStride to dst + r*dstStride (Concat, ./tfjsKernels.ts). */
const COPY_ROWS = `(func (export "copyRows") (param $src i32) (param $srcStride i32) (param $dst i32) (param $dstStride i32) (param $rows i32) (param $bytes i32)
(block $done (loop $row
(br_if $done (i32.eqz (local.get $rows)))
(memory.copy (local.get $dst) (local.get $src) (local.get $bytes))
(local.set $src (i32.add (local.get $src) (local.get $srcStride)))
(local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
(local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
(br $row))))`;

/** The address of the current value (byte $j of the row) of the operand at $`p`. */
const at = (p: string) => `(i32.add (local.get $${p}) (local.get $j))`;
/** The current value of the operand at $`p`. */
const get = (p: string) => `(f32.load ${at(p)})`;

/** A loop `label` over a row's values: `body` with $j from 0 by 4 bytes to $end, a row's bytes. */
const overRow = (label: string, body: string) => `(local.set $j (i32.const 0))
(loop ${label}
${body}
(br_if ${label} (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 4))) (local.get $end))))`;

/**
 * A row-wise kernel's function `name` (./rowwise.ts): the i32 operands `pointers`, then $rows and
 * the row's width `width`, then the f32 `floats`; `setup` once; per row, `body`, then each pointer
 * of `advance` steps on by its bytes ('row': a row of values, $end bytes).
 */
function rowwise(kernel: {
  name: string;
  pointers: string;
  width: string;
  floats?: string;
  locals: string;
  setup?: string;
  advance: Record<string, number | 'row'>;
  body: string;
}): string {
  const params = (names: string, type: string) => names.split(' ').map((name) => `(param ${name} ${type})`);
  return [
    `(func (export "${kernel.name}") ${[...params(`${kernel.pointers} $rows ${kernel.width}`, 'i32'), ...(kernel.floats ? params(kernel.floats, 'f32') : [])].join(' ')}`,
    `(local $j i32) (local $end i32) ${kernel.locals}`,
    `(local.set $end (i32.shl (local.get ${kernel.width}) (i32.const 2)))`,
    ...(kernel.setup ? [kernel.setup] : []),
    '(block $done (loop $row',
    '(br_if $done (i32.eqz (local.get $rows)))',
    kernel.body,
    ...Object.entries(kernel.advance).map(
      ([p, by]) =>
        `(local.set $${p} (i32.add (local.get $${p}) ${by === 'row' ? '(local.get $end)' : `(i32.const ${by})`}))`,
    ),
    '(local.set $rows (i32.sub (local.get $rows) (i32.const 1)))',
    '(br $row))))',
  ].join('\n');
}

/**
 * LayerNorm over rows of C values (agent/layers.ts `layerNorm`), forward: for each row of x,
 *   mean = (sum of x, in order from 0) / C, centred = x - mean,
 *   rstd = 1 / sqrt((sum of centred², in order from 0) / C + eps),
 *   xhat = centred · rstd, y = xhat · gain + bias,
 * writing y and xhat (rows of C) and rstd (one per row). Each operation rounded to float32 in
 * that order: tfjs's ops on wasm (Mean and Sum add in order from 0 and divide by the count,
 * Square multiplies, Rsqrt is 1 / sqrt), so the same bits.
 */
const LAYER_NORM = rowwise({
  name: 'layerNorm',
  pointers: '$x $gain $bias $y $xhat $rstd',
  width: '$C',
  floats: '$eps',
  locals: '(local $sum f32) (local $mean f32) (local $r f32) (local $c f32) (local $n f32)',
  setup: '(local.set $n (f32.convert_i32_u (local.get $C)))',
  advance: { x: 'row', y: 'row', xhat: 'row', rstd: 4 },
  body: `(local.set $sum (f32.const 0))
${overRow('$s', `(local.set $sum (f32.add (local.get $sum) ${get('x')}))`)}
(local.set $mean (f32.div (local.get $sum) (local.get $n)))
(local.set $sum (f32.const 0))
${overRow(
  '$v',
  `(local.set $c (f32.sub ${get('x')} (local.get $mean)))
(f32.store ${at('xhat')} (local.get $c))
(local.set $sum (f32.add (local.get $sum) (f32.mul (local.get $c) (local.get $c))))`,
)}
(local.set $r (f32.div (f32.const 1) (f32.sqrt (f32.add (f32.div (local.get $sum) (local.get $n)) (local.get $eps)))))
(f32.store (local.get $rstd) (local.get $r))
${overRow(
  '$out',
  `(local.set $c (f32.mul ${get('xhat')} (local.get $r)))
(f32.store ${at('xhat')} (local.get $c))
(f32.store ${at('y')} (f32.add (f32.mul (local.get $c) ${get('gain')}) ${get('bias')}))`,
)}`,
});

/**
 * LayerNorm's gradient (agent/layers.ts `layerNorm`) from dy, the saved xhat (rows of C) and
 * rstd (one per row) and the gain: for each row, with dxhat = dy · gain,
 *   dx = rstd · ((dxhat - mean(dxhat)) - xhat · mean(dxhat · xhat)),
 * and over the rows, in order from 0, dgain = sum of dy · xhat and dbias = sum of dy. Each
 * operation rounded to float32 in that order, the means as tfjs's Mean and the column sums as
 * tfjs's Sum over axis 0 (a sum in order of the row from 0): the same bits as tfjs's ops.
 */
const LAYER_NORM_GRAD = rowwise({
  name: 'layerNormGrad',
  pointers: '$dy $xhat $rstd $gain $dx $dgain $dbias',
  width: '$C',
  locals:
    '(local $s1 f32) (local $s2 f32) (local $m1 f32) (local $m2 f32) (local $d f32) (local $g f32) (local $h f32) (local $n f32)',
  setup: `(local.set $n (f32.convert_i32_u (local.get $C)))
(memory.fill (local.get $dgain) (i32.const 0) (local.get $end))
(memory.fill (local.get $dbias) (i32.const 0) (local.get $end))`,
  advance: { dy: 'row', xhat: 'row', dx: 'row', rstd: 4 },
  body: `(local.set $s1 (f32.const 0))
(local.set $s2 (f32.const 0))
${overRow(
  '$s',
  `(local.set $g ${get('dy')})
(local.set $h ${get('xhat')})
(local.set $d (f32.mul (local.get $g) ${get('gain')}))
(local.set $s1 (f32.add (local.get $s1) (local.get $d)))
(local.set $s2 (f32.add (local.get $s2) (f32.mul (local.get $d) (local.get $h))))
(f32.store ${at('dgain')} (f32.add ${get('dgain')} (f32.mul (local.get $g) (local.get $h))))
(f32.store ${at('dbias')} (f32.add ${get('dbias')} (local.get $g)))`,
)}
(local.set $m1 (f32.div (local.get $s1) (local.get $n)))
(local.set $m2 (f32.div (local.get $s2) (local.get $n)))
${overRow(
  '$out',
  `(local.set $d (f32.mul ${get('dy')} ${get('gain')}))
(f32.store ${at('dx')} (f32.mul (f32.load (local.get $rstd)) (f32.sub (f32.sub (local.get $d) (local.get $m1)) (f32.mul ${get('xhat')} (local.get $m2)))))`,
)}`,
});

/**
 * Each row of x less its maximum (agent/layers.ts, the head's stable softmax): m starts at the
 * row's first value and takes each later value greater than it (so a NaN is skipped unless it
 * comes first), out = x - m: tfjs's Max on wasm, then Sub, so the same bits.
 */
const ROW_SHIFT = rowwise({
  name: 'rowShift',
  pointers: '$x $out',
  width: '$V',
  locals: '(local $m f32) (local $v f32)',
  advance: { x: 'row', out: 'row' },
  body: `(local.set $m (f32.load (local.get $x)))
${overRow(
  '$max',
  `(local.set $v ${get('x')})
(local.set $m (select (local.get $v) (local.get $m) (f32.gt (local.get $v) (local.get $m))))`,
)}
${overRow('$each', `(f32.store ${at('out')} (f32.sub ${get('x')} (local.get $m)))`)}`,
});

/**
 * Softmax's gradient along rows of T (agent/layers.ts attention): for each row of probabilities
 * p and upstream gradient d, s = (sum of d · p, in order from 0), out = p · (d - s), each
 * operation rounded to float32 in that order, as tfjs's Multiply, Sum and Sub give it.
 */
const SOFTMAX_GRAD = rowwise({
  name: 'softmaxGrad',
  pointers: '$p $d $out',
  width: '$T',
  locals: '(local $s f32)',
  advance: { p: 'row', d: 'row', out: 'row' },
  body: `(local.set $s (f32.const 0))
${overRow('$sum', `(local.set $s (f32.add (local.get $s) (f32.mul ${get('d')} ${get('p')})))`)}
${overRow('$each', `(f32.store ${at('out')} (f32.mul ${get('p')} (f32.sub ${get('d')} (local.get $s))))`)}`,
});

/**
 * The row's target column as a byte offset ($t, against $j), from its int32 target: -1 (no
 * column) outside [0, V), where tfjs's oneHot row is all zeros.
 */
const TARGET_COLUMN = `(local.set $t (i32.load (local.get $target)))
(local.set $t (select (i32.shl (local.get $t) (i32.const 2)) (i32.const -1) (i32.lt_u (local.get $t) (local.get $V))))`;
/** The current value of the row's one-hot target: 1 in the target's column, else 0, as tfjs's oneHot cast to float32. */
const HOT = '(select (f32.const 1) (f32.const 0) (i32.eq (local.get $j) (local.get $t)))';

/**
 * The head's log-probability of the target, and with `entropy` the entropy, per row of V
 * (agent/layers.ts `pickLogProbs`, `pickLogProbsWithEntropy`), from the shifted logits z, their
 * exps, the exps' sum S and log S, and the int32 target (its one-hot row `HOT`): probs = exps / S,
 *   without entropy: value = (sum of z · hot, in order from 0) - log S;
 *   with it: logProbs = z - log S, H = -(sum of probs · logProbs), value = (sum of logProbs ·
 *   hot, H), writing logProbs and H too.
 * Each operation rounded to float32 in that order, as tfjs's ops give it.
 */
function pickKernel(entropy: boolean): string {
  return rowwise({
    name: entropy ? 'pickEntropy' : 'pick',
    pointers: `$z $exps $sums $logSums $target $probs $value${entropy ? ' $logp $h' : ''}`,
    width: '$V',
    locals: `(local $t i32) (local $S f32) (local $L f32) (local $q f32) (local $lp f32) (local $u f32)${entropy ? ' (local $e f32)' : ''}`,
    advance: {
      z: 'row',
      exps: 'row',
      probs: 'row',
      sums: 4,
      logSums: 4,
      target: 4,
      value: entropy ? 8 : 4,
      ...(entropy ? { logp: 'row', h: 4 } : {}),
    },
    body: `${TARGET_COLUMN}
(local.set $S (f32.load (local.get $sums)))
(local.set $L (f32.load (local.get $logSums)))${entropy ? '\n(local.set $e (f32.const 0))' : ''}
(local.set $u (f32.const 0))
${overRow(
  '$each',
  `(local.set $q (f32.div ${get('exps')} (local.get $S)))
(f32.store ${at('probs')} (local.get $q))
${
  entropy
    ? `(local.set $lp (f32.sub ${get('z')} (local.get $L)))
(f32.store ${at('logp')} (local.get $lp))
(local.set $e (f32.add (local.get $e) (f32.mul (local.get $q) (local.get $lp))))`
    : `(local.set $lp ${get('z')})`
}
(local.set $u (f32.add (local.get $u) (f32.mul (local.get $lp) ${HOT})))`,
)}
${
  entropy
    ? `(local.set $e (f32.neg (local.get $e)))
(f32.store (local.get $h) (local.get $e))
(f32.store (local.get $value) (local.get $u))
(f32.store offset=4 (local.get $value) (local.get $e))`
    : '(f32.store (local.get $value) (f32.sub (local.get $u) (local.get $L)))'
}`,
  });
}

/**
 * The gradient of log softmax(z)[target] and, with `entropy`, of the entropy H, with respect
 * to logits rows of V (agent/layers.ts `pickLogProbs`, `pickLogProbsWithEntropy`): for each
 * row, out = (hot - p) · dPicked, minus (p · (log p + H)) · dH with entropy, from the row's
 * probabilities p, int32 target (its one-hot row `HOT`), upstream gradients dy (dPicked, or
 * dPicked and dH side by side), and with entropy its log-probabilities and H. Each operation
 * rounded to float32 in that order, as tfjs's ops give it.
 */
function pickGradKernel(entropy: boolean): string {
  return rowwise({
    name: entropy ? 'pickEntropyGrad' : 'pickGrad',
    pointers: `$p $target $dy${entropy ? ' $logp $h' : ''} $out`,
    width: '$V',
    locals: `(local $t i32) (local $dPicked f32) (local $q f32) (local $g f32)${entropy ? ' (local $dH f32) (local $H f32)' : ''}`,
    advance: {
      p: 'row',
      out: 'row',
      target: 4,
      dy: entropy ? 8 : 4,
      ...(entropy ? { logp: 'row', h: 4 } : {}),
    },
    body: `${TARGET_COLUMN}
(local.set $dPicked (f32.load (local.get $dy)))${
      entropy
        ? `
(local.set $dH (f32.load offset=4 (local.get $dy)))
(local.set $H (f32.load (local.get $h)))`
        : ''
    }
${overRow(
  '$each',
  `(local.set $q ${get('p')})
(local.set $g (f32.mul (f32.sub ${HOT} (local.get $q)) (local.get $dPicked)))${
    entropy
      ? `
(local.set $g (f32.sub (local.get $g) (f32.mul (f32.mul (local.get $q) (f32.add ${get('logp')} (local.get $H))) (local.get $dH))))`
      : ''
  }
(f32.store ${at('out')} (local.get $g))`,
)}`,
  });
}

/** tfjs's binary kernels our elementwise kernels take over (./tfjsKernels.ts), each one IEEE operation. */
export const BINARY_OPS = { Add: 'add', Sub: 'sub', Multiply: 'mul' } as const;

/**
 * An elementwise kernel `binary_OP`: out[o, i] = A(o, i) OP B(o, i) for o < outer, i < inner,
 * out contiguous; A(o, i) at a + o*ao + i*ai bytes (ai 4 along a row, or 0: one value broadcast
 * along it), B likewise. One rounding per element, as any implementation of the op gives.
 */
function binaryKernel(op: (typeof BINARY_OPS)[keyof typeof BINARY_OPS]): string {
  // An operand's vector: loaded where it steps along the row, else its row's value splatted.
  const vector = (x: 'a' | 'b') =>
    `(if (result v128) (local.get $${x}i) (then (v128.load (local.get $p${x}))) (else (local.get $v${x})))`;
  const step = (x: 'a' | 'b', lanes: number) =>
    `(local.set $p${x} (i32.add (local.get $p${x}) ${lanes === 4 ? `(i32.shl (local.get $${x}i) (i32.const 2))` : `(local.get $${x}i)`}))`;
  return `(func (export "binary_${op}") (param $a i32) (param $ao i32) (param $ai i32) (param $b i32) (param $bo i32) (param $bi i32) (param $out i32) (param $outer i32) (param $inner i32)
(local $i i32) (local $pa i32) (local $pb i32) (local $va v128) (local $vb v128)
(block $rows_done (loop $rows
(br_if $rows_done (i32.eqz (local.get $outer)))
(local.set $pa (local.get $a))
(local.set $pb (local.get $b))
(local.set $va (f32x4.splat (f32.load (local.get $a))))
(local.set $vb (f32x4.splat (f32.load (local.get $b))))
(local.set $i (local.get $inner))
(block $vectors (loop $four
(br_if $vectors (i32.lt_u (local.get $i) (i32.const 4)))
(v128.store (local.get $out) (f32x4.${op} ${vector('a')} ${vector('b')}))
${step('a', 4)}
${step('b', 4)}
(local.set $out (i32.add (local.get $out) (i32.const 16)))
(local.set $i (i32.sub (local.get $i) (i32.const 4)))
(br $four)))
(block $tail (loop $one
(br_if $tail (i32.eqz (local.get $i)))
(f32.store (local.get $out) (f32.${op} (f32.load (local.get $pa)) (f32.load (local.get $pb))))
${step('a', 1)}
${step('b', 1)}
(local.set $out (i32.add (local.get $out) (i32.const 4)))
(local.set $i (i32.sub (local.get $i) (i32.const 1)))
(br $one)))
(local.set $a (i32.add (local.get $a) (local.get $ao)))
(local.set $b (i32.add (local.get $b) (local.get $bo)))
(local.set $outer (i32.sub (local.get $outer) (i32.const 1)))
(br $rows))))`;
}

/**
 * The whole module's WAT text: the tfjs module's memory, imported, one kernel per tile shape and
 * order, the packer, Adam's two loops, the elementwise kernels, the row copy and the row-wise
 * kernels. `fused` writes the tiles' vector multiply-adds as relaxed SIMD's `f32x4.relaxed_madd`
 * (one rounding where the CPU has FMA): other bits, so only `npm run bench` runs it (`tilesOf`,
 * `withTiles`), to measure what it would gain.
 */
export function kernelsModuleText({ fused = false }: { fused?: boolean } = {}): string {
  const kernels = [false, true].flatMap((columnsOuter) =>
    ROWS.flatMap((rows) => WIDTHS.map((width) => tileKernel(rows, width, columnsOuter, fused))),
  );
  return [
    '(module',
    '(import "tfjs" "memory" (memory 1))',
    ...kernels,
    PACK,
    SUM_SQUARES,
    adamKernel(),
    ...Object.values(BINARY_OPS).map(binaryKernel),
    COPY_ROWS,
    LAYER_NORM,
    LAYER_NORM_GRAD,
    SOFTMAX_GRAD,
    ROW_SHIFT,
    ...[false, true].flatMap((entropy) => [pickKernel(entropy), pickGradKernel(entropy)]),
    ')',
  ].join('\n');
}
