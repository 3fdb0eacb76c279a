import { closeSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { existsInside, explained, makeFolders, openAppendInside } from '../lib/files.ts';

/** The folder `name` of a study (`jobs`, `claims`, ...), made when absent; a link or a file in its place is refused. */
export function studyFolder(root: string, name: string): string {
  const path = join(root, name);
  explained(path, () => existsInside(root, name, 'folder') || makeFolders(path));
  return path;
}

export function openStudyLog(root: string, path: string): number {
  return explained(path, () => openAppendInside(root, relative(root, path)));
}

export function appendStudyLog(root: string, path: string, chunk: Uint8Array | string): void {
  const fd = openStudyLog(root, path);
  try {
    // Unlike writeSync, writeFileSync on a descriptor writes every byte.
    writeFileSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}
