const { rmSync } = require('node:fs');

module.exports = async () => {
	if (process.env.N8N_USER_FOLDER?.includes('traininglab-n8n-'))
		rmSync(process.env.N8N_USER_FOLDER, { recursive: true, force: true });
};
