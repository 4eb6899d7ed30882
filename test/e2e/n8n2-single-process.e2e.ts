import { endToEndSuite } from './scenarios';
import { singleProcess } from './topologies';

endToEndSuite(singleProcess('2.x'));
