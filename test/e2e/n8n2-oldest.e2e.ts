import { compatibilitySuite } from './suite';
import { singleProcess } from './topologies';

// The oldest n8n 2.x the package supports (test/e2e/n8n/2.x-oldest), in one process.
compatibilitySuite(singleProcess('2.x-oldest'));
