import { tracesSuite } from './suite';
import { singleProcess } from './topologies';

// The newest n8n 2.x (test/e2e/n8n/2.x) in one process, with tracing on: one trace from an API
// request into the execution it starts.
tracesSuite(singleProcess('2.x'));
