import { rmSync } from 'node:fs';
import { dirname } from 'node:path';

/** Removes the folder of the tarball test/e2e/global-setup.ts packed. */
export default function removePackage(): void {
	const tarball = process.env.TRAININGLAB_E2E_TARBALL;
	if (tarball?.includes('traininglab-e2e-package-'))
		rmSync(dirname(tarball), { recursive: true, force: true });
}
