#!/usr/bin/env node
// Entry point of the `tinyagent` command: loads the TypeScript sources through tsx,
// so that `npx tinyagent ...` works right after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

// A reader that closes early (`tinyagent tasks | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
