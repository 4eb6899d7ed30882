import { endToEndSuite } from './suite';
import { queueMode } from './topologies';

endToEndSuite(queueMode('2.x'));
