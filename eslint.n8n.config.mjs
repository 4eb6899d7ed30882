// n8n's own community-node ESLint configuration — the rules `n8n-node lint` applies — over the
// n8n package: nodes/, credentials/ and package.json (`npm run lint:n8n`).
import { config } from '@n8n/node-cli/eslint';

export default config;
