/**
 * Our WebAssembly kernels on the wasm backend: strided float32 products (./products.ts), Adam's
 * update and the clip's sum of squares (./adam.ts) and the row-wise kernels of LayerNorm and the
 * softmaxes (./rowwise.ts), these last two the same bits as the tfjs ops they replace, and five
 * of tfjs's own kernels in place of tfjs-backend-wasm's (./tfjsKernels.ts).
 * How to change one: docs/MODEL.md, "How to change a kernel".
 */
export { adamUpdate, sumOfSquares, type AdamScalars } from './adam.ts';
export { checkProductBounds, stridedSpan, type ProductGeometry } from './bounds.ts';
export { rowKernel } from './rowwise.ts';
export { installKernels, selfTest, tilesOf, uninstallKernels, withTiles } from './install.ts';
export { productsInstalled, useBoundsChecks, useOwnProducts, valuesInPlace } from './instance.ts';
export { columnSums, matrixProductGeometry, PRODUCT_KERNEL, product, stridedProduct } from './products.ts';
export { ADAM_SCALARS, KERNELS_WAT, kernelsModuleText } from './text.ts';
export { PINNED_TFJS } from './tfjsWasm.ts';
