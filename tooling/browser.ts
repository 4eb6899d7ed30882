import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { installDebianPackages } from './debian.ts';

/** Debian's Chromium: nothing downloads a browser build (this machine reaches only npm and Debian). */
export const CHROMIUM = '/usr/bin/chromium';

/** Installs Debian's `chromium` when it is missing. */
export function ensureChromium(neededBy: string): void {
	installDebianPackages(existsSync(CHROMIUM) ? [] : ['chromium'], neededBy);
}

/** Headless Chromium with nothing of its own on the network (no updates, sync or QUIC probes). */
export function launchChromium(): Promise<Browser> {
	return chromium.launch({
		executablePath: CHROMIUM,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
}
