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

/** The element count of each buffer a product reads or writes. */
export interface ProductBuffers {
  a: number;
  b: number;
  out: number;
  bias?: number;
}

/**
 * How many elements a strided operand spans from its first: one past the furthest,
 * 1 + sum_d (counts[d] - 1) * strides[d], or 0 when some count is 0 (nothing is touched).
 * With non-negative strides the first element is the lowest, so the operand lies inside a
 * buffer of n elements exactly when this is at most n.
 * @example stridedSpan([2, 3], [10, 1]) // 13: elements 0-2 and 10-12
 */
export function stridedSpan(counts: readonly number[], strides: readonly number[]): number {
  if (counts.some((count) => count === 0)) return 0;
  return counts.reduce((span, count, d) => span + (count - 1) * strides[d]!, 1);
}

/**
 * Throws a one-line error, naming `kernel` and the operand, when a product of this geometry would
 * read or write outside one of its buffers: a count or stride that is not a non-negative integer,
 * or an operand's span (`stridedSpan`) past its buffer's end. Called before anything is written.
 */
export function checkProductBounds(kernel: string, geometry: ProductGeometry, buffers: ProductBuffers): void {
  const { rows, depth, cols, batch, heads, aStrides, bStrides, cStrides } = geometry;
  const counts = [rows, depth, cols, batch, heads, ...aStrides, ...bStrides, ...cStrides];
  if (!counts.every(isCount)) {
    const numbers = { rows, depth, cols, batch, heads, aStrides, bStrides, cStrides };
    const [name, value] = Object.entries(numbers).find(([, v]) => ![v].flat().every(isCount))!;
    throw new Error(`${kernel}: ${name} ${String(value)} is not made of non-negative integers`);
  }
  const over = (name: string, span: number, size: number) => {
    if (span > size)
      throw new Error(
        `${kernel}: ${name} would reach element ${span - 1} of a ${size}-element buffer (rows ${rows}, depth ${depth}, cols ${cols}, batch ${batch}, heads ${heads})`,
      );
  };
  over('a', stridedSpan([batch, heads, rows, depth], aStrides), buffers.a);
  over('b', stridedSpan([batch, heads, depth, cols], [...bStrides, 1]), buffers.b);
  over('out', stridedSpan([batch, heads, rows, cols], [...cStrides, 1]), buffers.out);
  if (buffers.bias !== undefined) over('bias', cols, buffers.bias);
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}
