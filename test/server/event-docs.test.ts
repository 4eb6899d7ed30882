import { documentedEventTable, eventTable } from '../../tooling/event-table.ts';

// docs/api.md's table of event types is where a reader of the docs looks up an event: it must say
// what the schemas say (`npm run docs:events` writes it from them).
describe('the event table of docs/api.md', () => {
	it('is the one the event schemas give: run `npm run docs:events` after changing one', () => {
		expect(documentedEventTable()).toBe(eventTable());
	});
});
