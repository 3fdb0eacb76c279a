import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { K8S_STUDY_PATH, k8sContainerArgs } from '../../study/scheduler.ts';

/** The repository's Dockerfile. */
export const DOCKERFILE = join(import.meta.dirname, '..', '..', 'Dockerfile');

/** The Dockerfile's ENTRYPOINT, in its exec (JSON) form. */
export function entrypoint(): string[] {
  const line = readFileSync(DOCKERFILE, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('ENTRYPOINT '));
  if (line === undefined) throw new Error(`${DOCKERFILE} has no ENTRYPOINT`);
  return JSON.parse(line.slice('ENTRYPOINT '.length)) as string[];
}

/**
 * What a pod of `manifest` runs, here: the image's ENTRYPOINT with the image's paths mapped to
 * this machine's (node to this node, /app to this checkout), then the container's args with
 * Kubernetes' `$(JOB_COMPLETION_INDEX)` expanded to `index` and the mount path to `study`, the
 * folder the volume would hold. Any other path of the image left in the command is an error.
 */
export function podCommand(manifest: string, { index, study }: { index: number; study: string }): string[] {
  const checkout = join(import.meta.dirname, '..', '..');
  const [node, bin, ...rest] = entrypoint();
  if (node !== 'node' || !bin!.startsWith('/app/') || rest.length > 0)
    throw new Error(`the ENTRYPOINT is not node /app/...: ${JSON.stringify(entrypoint())}`);
  return [
    process.execPath,
    join(checkout, bin!.slice('/app/'.length)),
    ...k8sContainerArgs(manifest).map((arg) =>
      arg === '$(JOB_COMPLETION_INDEX)' ? String(index) : arg === K8S_STUDY_PATH ? study : arg,
    ),
  ];
}
