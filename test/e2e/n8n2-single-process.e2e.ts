import { endToEndSuite } from './suite';
import { singleProcess } from './topologies';

endToEndSuite(singleProcess('2.x'));
