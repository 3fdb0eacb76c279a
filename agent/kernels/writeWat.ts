import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../../lib/atomic.ts';
import { kernelsModuleText } from './text.ts';

/** Where the generated WAT is committed, beside its generator. */
export const KERNELS_WAT = fileURLToPath(new URL('./kernels.wat', import.meta.url));

// `npm run kernels:wat`: rewrites kernels.wat from the generator, to commit with a kernel's change.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileAtomic(KERNELS_WAT, kernelsModuleText());
  process.stdout.write(`wrote ${KERNELS_WAT}\n`);
}
