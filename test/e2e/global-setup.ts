import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAndPack } from '../../tooling/n8n/install';

/**
 * The package is built and packed once for the whole end-to-end run, before the suites start: two
 * suites run at a time, and two builds at once in one checkout delete each other's output. The
 * workers inherit the environment; packPackage copies this tarball.
 */
export default function packOnce(): void {
	const dir = mkdtempSync(join(tmpdir(), 'traininglab-e2e-package-'));
	process.env.TRAININGLAB_E2E_TARBALL = buildAndPack(dir);
}
