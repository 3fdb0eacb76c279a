/**
 * `npm test`'s first step (package.json `pretest`): makes sure the Debian packages that the suite
 * drives for real are installed (test/support/systemPackages.ts: Chromium for the page tests, Slurm for the
 * study tests). Nothing to do: silent. Missing, as root with apt-get: `apt-get update` and
 * `apt-get install -y` them, saying why first. Missing otherwise: print the one line to run and
 * exit 1, so that the tests never start without them (a test never skips a missing component).
 *
 * Command: node --import tsx test/system-setup.ts (npm test runs it).
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { installLine, SYSTEM_COMPONENTS, type SystemComponent } from './support/systemPackages.ts';

export type SetupAction =
  { kind: 'none' } | { kind: 'install'; packages: string[] } | { kind: 'instruct'; message: string };

/** The packages of `components` that `installed` does not hold, in list order. */
export function missingPackages(
  components: readonly SystemComponent[],
  installed: ReadonlySet<string>,
): string[] {
  return components.flatMap((component) => component.packages).filter((name) => !installed.has(name));
}

/** What to do about `missing`: nothing, install them (root with apt-get), or tell the user the one line to run. */
export function setupAction(
  missing: readonly string[],
  { root, apt }: { root: boolean; apt: boolean },
): SetupAction {
  if (missing.length === 0) return { kind: 'none' };
  if (!apt)
    return {
      kind: 'instruct',
      message: `the tests need these Debian packages, and this machine has no apt-get: ${missing.join(', ')} (install them with its own package manager)`,
    };
  if (root) return { kind: 'install', packages: [...missing] };
  return {
    kind: 'instruct',
    message: `the tests need packages that are not installed; run: sudo apt-get update && ${installLine(missing, { sudo: true })}`,
  };
}

/** Which of `names` dpkg reports as installed ('ii'). Empty when dpkg-query is missing. */
function installedPackages(names: readonly string[]): Set<string> {
  const query = spawnSync('dpkg-query', ['-W', '-f', '${Package} ${db:Status-Abbrev}\n', ...names], {
    encoding: 'utf8',
  });
  const installed = new Set<string>();
  for (const line of (query.stdout ?? '').split('\n')) {
    const [name, status] = line.trim().split(/\s+/);
    if (name && status?.startsWith('ii')) installed.add(name);
  }
  return installed;
}

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) {
    console.error(
      `npm test: \`${command} ${args.join(' ')}\` failed (exit ${result.status ?? result.signal})`,
    );
    process.exit(1);
  }
}

function main(): void {
  const names = SYSTEM_COMPONENTS.flatMap((component) => component.packages);
  const missing = missingPackages(SYSTEM_COMPONENTS, installedPackages(names));
  const action = setupAction(missing, { root: process.getuid?.() === 0, apt: onPath('apt-get') });
  if (action.kind === 'none') return;
  if (action.kind === 'instruct') {
    console.error(`npm test: ${action.message}`);
    process.exit(1);
  }
  const why = SYSTEM_COMPONENTS.filter((component) =>
    component.packages.some((name) => action.packages.includes(name)),
  )
    .map((component) => `${component.what} for ${component.tests}`)
    .join('; ');
  console.error(`npm test: installing ${action.packages.join(' ')} from Debian (${why}); once only`);
  const started = Date.now();
  // Another apt-get (an unattended upgrade, a second shell) holds dpkg's lock for a while: wait for it.
  const wait = ['-o', 'DPkg::Lock::Timeout=600'];
  run('apt-get', [...wait, 'update']);
  run('apt-get', [...wait, 'install', '-y', ...action.packages]);
  console.error(`npm test: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
