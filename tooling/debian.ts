import { run } from './processes.ts';

// Run as root, or through `sudo -n` elsewhere (a CI runner): a policy-rc.d answering 101 ("action
// forbidden") for the duration keeps the packages' install scripts from starting the system
// services, so the install leaves nothing running.
const INSTALL_SCRIPT = `set -e
# One install at a time (the e2e suites' services and the unit tests' tools may be asked for together).
exec 9>/var/lock/traininglab-debian-install.lock
flock -w 900 9
own=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	own=1
fi
trap 'if [ -n "$own" ]; then rm -f /usr/sbin/policy-rc.d; fi' EXIT
# Another program's install may hold apt's own lock: wait for it too.
apt-get -o DPkg::Lock::Timeout=600 update -qq
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@"`;

export const isRoot = () => process.getuid?.() === 0;

/** Installs Debian's `packages` (none when empty); `neededBy` names who needs them in the error. */
export function installDebianPackages(packages: string[], neededBy: string): void {
	if (packages.length === 0) return;
	const command = isRoot() ? ['sh'] : ['sudo', '-n', 'sh'];
	try {
		run(command[0], [...command.slice(1), '-c', INSTALL_SCRIPT, 'install', ...packages], {
			cwd: '/',
		});
	} catch (error) {
		throw new Error(
			`${neededBy} need ${packages.join(' and ')}, and installing them failed (run as root or with password-less sudo, or install them first):\n${(error as Error).message}`,
		);
	}
}
