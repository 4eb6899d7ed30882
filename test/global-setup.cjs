// n8n-core keeps its settings in N8N_USER_FOLDER (default ~/.n8n): give the whole run one throwaway
// folder (workers inherit the environment), removed again by global-teardown.cjs.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async () => {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'traininglab-n8n-'));
	process.env.N8N_ENCRYPTION_KEY = 'traininglab-tests';
	process.env.N8N_LOG_LEVEL = 'silent';
};
