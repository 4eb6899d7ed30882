import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver of named gates (`<url>/<name>`): an open gate answers 204 at once and counts
 * what arrives; a shut one holds each request unanswered until it opens. A sender whose gate is
 * shut soon has all its sends in flight and waits, so several servers can keep their backlogs and
 * drain one at a time, each for as long as its gate is open.
 */
export async function startGatedReceiver() {
	const gates = new Map<
		string,
		{ open: boolean; arrived: number; answered: number; held: ServerResponse[] }
	>();
	const gate = (name: string) => {
		let found = gates.get(name);
		if (!found) gates.set(name, (found = { open: false, arrived: 0, answered: 0, held: [] }));
		return found;
	};
	const server = createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			const at = gate(req.url!.slice(1));
			if (!at.open) return at.held.push(res);
			at.arrived++;
			at.answered++;
			res.writeHead(204).end();
		});
	});
	// A shut gate holds requests for as long as the other servers' readings take.
	server.requestTimeout = 0;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		/** Deliveries that arrived at `name`'s gate while it was open for `seconds`. */
		async open(name: string, seconds: number): Promise<number> {
			const at = gate(name);
			at.open = true;
			at.arrived = 0;
			at.answered += at.held.length;
			for (const res of at.held.splice(0)) res.writeHead(204).end();
			await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
			at.open = false;
			return at.arrived;
		},
		/** Deliveries `name`'s gate answered in all. */
		answered: (name: string) => gate(name).answered,
		close: () => {
			for (const { held } of gates.values()) for (const res of held) res.destroy();
			server.close();
		},
	};
}
