import { Agent } from 'undici';
import { fetchThrough } from './fetch-agent';

// The end-to-end harness makes organizations with the bootstrap command run synchronously
// (tooling/api/server-process.ts, bootstrapOrg): on a loaded machine that stalls the event loop for
// seconds, long enough for a server (n8n, the API) to close a keep-alive connection whose idle
// timer fetch could not run meanwhile; the request sent next on it failed with "other side closed"
// (side-by-side scenarios each making their organization, three busy CI runs). The suites' fetch
// therefore keeps no connection: each request has its own, which on loopback costs little.
fetchThrough(new Agent({ pipelining: 0 }));
