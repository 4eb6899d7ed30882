import { Agent } from 'undici';
import { fetchThrough } from './fetch-agent';

// The servers the tests talk to (n8n, the API server, receivers) close a keep-alive connection that
// has been idle for 5 s; fetch keeps one for 4 s. On a loaded machine the two timers cross, and a
// request sent on a connection the server is closing fails with "other side closed". The tests'
// fetch lets an idle connection go after 100 ms: the event loop would have to stall for almost 5 s
// for the timers to cross (a cold CI run beside a busy core saw 1 s not be enough).
fetchThrough(new Agent({ keepAliveTimeout: 100, keepAliveMaxTimeout: 100 }));
