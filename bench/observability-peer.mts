import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// What watches a server whose metrics and traces are on, in a process of its own as it is in a
// deployment (bench/observability.mts forks it): an OTLP collector that reads each export and
// answers at once, and a scraper that fetches `/metrics` as often as told. In the load generator's
// process they would take its time, and the server would look slower than it is.
//
// Messages from the parent: { scrape: { url, token, everyMs } } starts (or resumes) scraping url
// every everyMs, { unscrape: url } pauses it, { tally: true } asks what arrived: { exportedBytes,
// exports, scrapes }.

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

/**
 * A server's scrape schedule, kept across its readings: a reading shorter than the interval still
 * gets its share of scrapes, and every server of a mode gets one every `everyMs` of being read.
 */
interface Schedule {
	url: string;
	token: string;
	everyMs: number;
	/** When the next scrape is due while the server is read; while it is not, how long is left. */
	dueAt: number;
	leftMs: number;
	timer?: NodeJS.Timeout;
}
const schedules = new Map<string, Schedule>();

const scrape = ({ url, token }: Schedule) =>
	fetch(url, { headers: { authorization: `Bearer ${token}` } })
		.then(async (response) => {
			await response.arrayBuffer();
			// A server off answers 404: asked, not scraped.
			if (response.ok) tally.scrapes++;
		})
		.catch(() => {});
const resume = (schedule: Schedule) => {
	schedule.dueAt = performance.now() + schedule.leftMs;
	schedule.timer = setTimeout(() => {
		void scrape(schedule);
		schedule.leftMs = schedule.everyMs;
		resume(schedule);
	}, schedule.leftMs);
};
const pause = (schedule: Schedule) => {
	clearTimeout(schedule.timer);
	schedule.timer = undefined;
	schedule.leftMs = Math.max(0, schedule.dueAt - performance.now());
};

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
		let schedule = schedules.get(url);
		if (!schedule) {
			schedule = { url, token, everyMs, dueAt: 0, leftMs: everyMs };
			schedules.set(url, schedule);
		}
		if (!schedule.timer) resume(schedule);
	} else if ('unscrape' in message) {
		const schedule = schedules.get(message.unscrape);
		if (schedule?.timer) pause(schedule);
	} else process.send!({ tally });
});
process.on('disconnect', () => process.exit(0));
