import { compatibilitySuite } from './suite';
import { singleProcess } from './topologies';

// n8n's newest release that day (TRAININGLAB_N8N_VERSION, unpinned), in one process, on the Node
// TRAININGLAB_N8N_NODE names: run weekly by .github/workflows/compatibility.yml.
compatibilitySuite(singleProcess('latest'));
