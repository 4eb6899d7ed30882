import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PACKAGE_NAME = 'n8n-nodes-traininglab';

/** Each node of the package by the type a workflow gives it. */
export const NODE_TYPE = {
	trainingLab: `${PACKAGE_NAME}.trainingLab`,
	trainingLabTool: `${PACKAGE_NAME}.trainingLabTool`,
	trainingLabTrigger: `${PACKAGE_NAME}.trainingLabTrigger`,
	trainingLabActivityTrigger: `${PACKAGE_NAME}.trainingLabActivityTrigger`,
} as const;

/**
 * The repository: the folder above the working directory that holds this package's package.json
 * (found that way, not from this file's location, so that jest's CommonJS and Node's native ES
 * modules — `npm run dev` loads this file natively — read it alike).
 */
function repositoryRoot(): string {
	for (let dir = process.cwd(); ; dir = dirname(dir)) {
		const manifest = join(dir, 'package.json');
		if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === PACKAGE_NAME)
			return dir;
		if (dirname(dir) === dir)
			throw new Error(`run this from inside the ${PACKAGE_NAME} repository`);
	}
}

export const ROOT = repositoryRoot();
