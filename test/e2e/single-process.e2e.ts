import { join } from 'node:path';
import { installTarball, startN8n } from '../support/real-n8n';
import { endToEndSuite } from './scenarios';

// n8n as most people run it: one process on SQLite serving the editor, the APIs and webhooks, and
// running every execution.
endToEndSuite({
	async start(n8nDir, work, tarball) {
		const userFolder = join(work, 'n8n-user');
		installTarball(userFolder, tarball);
		return await startN8n(n8nDir, userFolder);
	},
	executors: ['main'],
});
