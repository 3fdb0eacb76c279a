#!/usr/bin/env node
// Entry point of the `tinyagent` command: loads the TypeScript sources through tsx,
// so that `npx tinyagent ...` works right after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
