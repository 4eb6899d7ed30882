// `npm run docs:events`: rewrites docs/api.md's table of event types from the event schemas.
import { writeEventTable } from '../event-table.ts';

writeEventTable();
