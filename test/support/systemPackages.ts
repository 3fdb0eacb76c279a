/**
 * The Debian packages the test suite drives for real: one list, read by `npm test`'s setup step
 * (`test/system-setup.ts`, which `.ci/run` reaches through `npm test`) and by the tests that start
 * these components. The browser's and Slurm's package names are the product's (lib/browser.ts
 * for the screenshot scripts, bench/slurm.ts for the Slurm bench). A test never skips a missing
 * component: it fails, naming the packages listed here.
 */
import { SLURM_PACKAGES } from '../../bench/slurm.ts';
import { CHROMIUM_PACKAGE } from '../../lib/browser.ts';

export interface SystemComponent {
  /** What the tests get from it, for the one line `npm test` prints when it installs it. */
  what: string;
  /** Which tests use it. */
  tests: string;
  /** Debian package names, installed with `apt-get install -y`. */
  packages: readonly string[];
}

export const BROWSER: SystemComponent = {
  what: 'a real browser (Chromium)',
  tests: 'the report page and episode viewer tests',
  packages: [CHROMIUM_PACKAGE],
};

export const SLURM: SystemComponent = {
  what: 'a real Slurm cluster',
  tests: 'the seed-study Slurm tests',
  packages: SLURM_PACKAGES,
};

/** `ip` (netns, veth, bridge) and `nsenter`/`unshare`: each Slurm node of the multi-node test in its own namespaces. */
export const NAMESPACES: SystemComponent = {
  what: 'network, UTS and PID namespaces for several Slurm nodes on one machine',
  tests: 'the multi-node Slurm test (test/study-multinode.test.ts)',
  packages: ['iproute2', 'util-linux'],
};

export const SYSTEM_COMPONENTS: readonly SystemComponent[] = [BROWSER, SLURM, NAMESPACES];

/** Every package of every component, in list order. */
export const SYSTEM_PACKAGES: readonly string[] = SYSTEM_COMPONENTS.flatMap(
  (component) => component.packages,
);

/** The install line a user without root runs for `packages`. */
export const installLine = (packages: readonly string[], { sudo }: { sudo: boolean }) =>
  `${sudo ? 'sudo ' : ''}apt-get install -y ${packages.join(' ')}`;
