import { endToEndSuite } from './scenarios';
import { queueMode } from './topologies';

endToEndSuite(queueMode('2.x'));
