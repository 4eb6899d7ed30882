import { Agent, setGlobalDispatcher } from 'undici';

// The servers the tests talk to (n8n, the API server, receivers) close a keep-alive connection that
// has been idle for 5 s; fetch keeps one for 4 s. On a loaded machine the two timers cross, and a
// request sent on a connection the server is closing fails with "other side closed". The tests'
// fetch lets an idle connection go after 1 s, well before any server does.
setGlobalDispatcher(new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 }));
