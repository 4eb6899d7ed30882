// `npm run build:console` (also run by `npm start` and `npm run build`): the web console the API
// server serves at /console, into build/console.
import { buildConsole } from '../tooling/console-build.ts';

buildConsole();
