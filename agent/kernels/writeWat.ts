import { fileURLToPath } from 'node:url';

/** Where the generated WAT is committed, beside its generator (`npm run kernels:wat` rewrites it). */
export const KERNELS_WAT = fileURLToPath(new URL('./kernels.wat', import.meta.url));
