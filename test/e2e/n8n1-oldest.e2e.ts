import { compatibilitySuite } from './suite';
import { singleProcess } from './topologies';

// The oldest n8n 1.x the package supports (test/e2e/n8n/1.x-oldest), in one process.
compatibilitySuite(singleProcess('1.x-oldest'));
