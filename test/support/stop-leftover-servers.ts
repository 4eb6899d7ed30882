import { stopLeftoverServers } from '../../tooling/api/server-process.ts';

// A test whose expectation fails skips the stop at its end: the servers it started are killed once
// its file is done, so that none outlives the run. Declared before the file's own hooks, this runs
// after its describe blocks' afterAll hooks (which stop their servers themselves) and before its
// root-level ones.
afterAll(stopLeftoverServers);
