// The soak's measure of the machine's speed, in a process of its own on the server's core: once a
// second it does the same small piece of work — what a request of the server does, on a database that
// never grows: a transaction of ten inserts and a page of 50 rows read and serialised to JSON — ten
// times, times each, and prints as a line of JSON the median. The work never changes, so what moves
// that time is the core: its clock, a busy sibling thread, the host's caches (on a virtual machine,
// where steal reads 0, nothing else shows it). A slower server moves the server's CPU time per request
// and not this. Wall time, the median of ten: a piece the scheduler interrupted is one of the slow
// few (Linux counts a thread's CPU time in clock ticks, too coarse for pieces of a few hundred µs).
// About 2 ms a second.
import Database from 'better-sqlite3';

const PIECES = 10;
const db = new Database(':memory:');
db.exec(
	'CREATE TABLE sessions (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, created_at TEXT NOT NULL)',
);
const insert = db.prepare('INSERT INTO sessions (id, title, created_at) VALUES (?, ?, ?)');
const page = db.prepare('SELECT * FROM sessions ORDER BY seq DESC LIMIT 50');
let round = 0;
const insertTen = db.transaction(() => {
	round++;
	for (let i = 0; i < 10; i++)
		insert.run(`${round}-${i}-${'x'.repeat(28)}`, `Calibration ${i}`, new Date(0).toISOString());
});

/** One piece of the work, and how long it took in ms; the table is emptied every 50 pieces. */
function piece(): number {
	const started = performance.now();
	for (let i = 0; i < 4; i++) {
		insertTen();
		JSON.stringify(page.all());
	}
	if (round % 200 === 0) db.exec('DELETE FROM sessions');
	return performance.now() - started;
}

for (let i = 0; i < 200; i++) piece(); // compiled and warm before the first measurement
setInterval(() => {
	const took = Array.from({ length: PIECES }, piece).sort((a, b) => a - b);
	console.log(JSON.stringify({ at: Date.now(), ms: (took[4] + took[5]) / 2 }));
}, 1000);
