import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// What watches a server whose metrics and traces are on, in a process of its own as it is in a
// deployment (bench/observability.mts forks it): an OTLP collector that reads each export and
// answers at once, and a scraper that fetches `/metrics` as often as told. In the load generator's
// process they would take its time, and the server would look slower than it is.
//
// Messages from the parent: { scrape: { url, token, everyMs } } starts scraping url every everyMs,
// { unscrape: url } stops, { tally: true } asks what arrived: { exportedBytes, exports, scrapes }.

export type PeerRequest =
	| { scrape: { url: string; token: string; everyMs: number } }
	| { unscrape: string }
	| { tally: true };
export interface PeerTally {
	exportedBytes: number;
	exports: number;
	scrapes: number;
}

const tally: PeerTally = { exportedBytes: 0, exports: 0, scrapes: 0 };
const scrapers = new Map<string, NodeJS.Timeout>();

const collector = createServer((req, res) => {
	req.on('data', (chunk: Buffer) => (tally.exportedBytes += chunk.byteLength));
	req.on('end', () => {
		tally.exports++;
		res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
	});
});
collector.listen(0, '127.0.0.1', () => {
	const { port } = collector.address() as AddressInfo;
	process.send!({ collector: `http://127.0.0.1:${port}` });
});

process.on('message', (message: PeerRequest) => {
	if ('scrape' in message) {
		const { url, token, everyMs } = message.scrape;
		const scrape = () =>
			fetch(url, { headers: { authorization: `Bearer ${token}` } })
				.then((response) => response.arrayBuffer())
				.then(
					() => tally.scrapes++,
					() => {},
				);
		scrapers.set(url, setInterval(scrape, everyMs));
	} else if ('unscrape' in message) {
		clearInterval(scrapers.get(message.unscrape));
		scrapers.delete(message.unscrape);
	} else process.send!({ tally });
});
process.on('disconnect', () => process.exit(0));
