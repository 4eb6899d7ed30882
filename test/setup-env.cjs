// n8n-core keeps its settings in N8N_USER_FOLDER (default ~/.n8n): point it at a throwaway folder per worker.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'traininglab-n8n-'));
process.env.N8N_ENCRYPTION_KEY ??= 'traininglab-tests';
process.env.N8N_LOG_LEVEL ??= 'silent';
