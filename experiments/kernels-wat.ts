/**
 * The committed WebAssembly text of our kernels, rewritten from its generator.
 *
 * Question: what does a change to agent/kernels/text.ts change in the kernels' code? Rewrite
 *   agent/kernels/kernels.wat and read its diff (docs/MODEL.md, "How to change a kernel");
 *   test/agent-kernels.test.ts fails while the committed file and the generator differ.
 * Command: npm run kernels:wat
 * Runtime: well under a second.
 * Output: agent/kernels/kernels.wat (written atomically), and one line naming it.
 */
import { KERNELS_WAT, kernelsModuleText } from '../agent/kernels/index.ts';
import { writeFileAtomic } from '../lib/atomic.ts';
import { UsageError } from '../lib/errors.ts';
import { isMain, runScript } from '../lib/script.ts';

if (isMain(import.meta.url))
  await runScript('kernels:wat', async () => {
    const extra = process.argv.slice(2);
    if (extra.length > 0) throw new UsageError(`unknown argument '${extra[0]}' (this script takes none)`);
    writeFileAtomic(KERNELS_WAT, kernelsModuleText());
    process.stdout.write(`wrote ${KERNELS_WAT}\n`);
  });
