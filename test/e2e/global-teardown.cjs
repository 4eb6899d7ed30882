const { rmSync } = require('node:fs');
const { dirname } = require('node:path');

module.exports = async () => {
	const tarball = process.env.TRAININGLAB_E2E_TARBALL;
	if (tarball?.includes('traininglab-e2e-package-'))
		rmSync(dirname(tarball), { recursive: true, force: true });
};
