import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

describe('supported Node versions (package.json engines)', () => {
  const supported = pkg.engines.node;
  const lowest = semver.minVersion(supported)!.version;

  it('the Node running the tests is a supported one (CI runs the lowest major, 20)', () => {
    expect(semver.satisfies(process.version, supported), `${process.version} against ${supported}`).toBe(
      true,
    );
  });

  it('every locked package admits the lowest supported Node, so npm ci warns of no engine', () => {
    const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range !== undefined && !semver.satisfies(lowest, range) ? [`${path} needs ${range}`] : [];
    });
    expect(lowest).toBe('20.19.0');
    expect(refused).toEqual([]);
  });

  it('README states the same versions', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('Node 20.19 or newer (20.19+ or 22.12+');
  });
});
