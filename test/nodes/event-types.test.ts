import { EVENT_TYPE_OPTIONS } from '../../nodes/shared/events';
import { startTestServer, type TestServer } from '../support/test-server';
import { createOrg } from '../support/fixtures';

let server: TestServer;
let catalogue: Array<{ type: string; title: string; description: string }>;
beforeAll(async () => {
	server = await startTestServer();
	catalogue = (await (await createOrg(server)).trainer.get('/event-types')).body;
});
afterAll(() => server.stop());

describe("the nodes' event types", () => {
	it("are the API's, each named and described as GET /event-types has it", () => {
		const asTheEditorShowsIt = (description: string) =>
			description.replaceAll('`', '').replace(/\.$/, '');
		expect(
			[...EVENT_TYPE_OPTIONS].sort((a, b) => String(a.value).localeCompare(String(b.value))),
		).toEqual(
			[...catalogue]
				.sort((a, b) => a.type.localeCompare(b.type))
				.map(({ type, title, description }) => ({
					name: title,
					value: type,
					description: asTheEditorShowsIt(description),
				})),
		);
	});
});
