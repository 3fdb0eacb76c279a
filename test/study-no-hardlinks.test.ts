import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// A file system without hard links (FAT, some FUSE and SMB mounts) fails link(2) with EPERM or
// ENOTSUP: stood in for here by a linkSync that fails so, for this file's modules only.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const linkSync = () => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
  };
  return { ...fs, default: { ...fs, linkSync }, linkSync };
});

const { claimJob } = await import('../study/leases.ts');

describe('a study folder on a file system without hard links', () => {
  it('a claim is refused in one line naming the lock and the cause, and leaves nothing behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tinyagent-no-links-'));
    mkdirSync(join(dir, 'claims'));
    await expect(claimJob(dir, 'job', { timeout: 1 })).rejects.toThrow(
      new RegExp(
        `^${join(dir, 'claims', 'job.lock')}: cannot hard-link a claim into place \\(EPERM\\); claims need a file system with hard links \\(a local disk or NFS\\): move the study folder to one$`,
      ),
    );
    expect(readdirSync(join(dir, 'claims'))).toEqual([]);
  });
});
