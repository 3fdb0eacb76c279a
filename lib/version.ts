import { readFileSync } from 'node:fs';

let version: string | undefined;

/** The project's version, from package.json (`tinyagent --version`, provenance, fingerprints). */
export function projectVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return version;
}
