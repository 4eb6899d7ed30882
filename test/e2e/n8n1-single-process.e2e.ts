import { endToEndSuite } from './suite';
import { singleProcess } from './topologies';

// The newest n8n 1.x (test/e2e/n8n/1.x), in one process.
endToEndSuite(singleProcess('1.x'));
