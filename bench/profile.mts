// `npm run bench:profile -- [path] [--post] [--connections N] [--seconds S]`: where the API server
// spends its time on one request under load. The server runs with 10,000 sessions under Node's CPU
// profiler while autocannon sends `GET <path>` (default /sessions?limit=100; `{sessionId}` in it is
// one of those sessions), or with --post `POST /sessions` as the throughput benchmark does; printed:
// the share of the samples by area (SQLite, zod, Express, Node's HTTP, our code by folder) and the
// functions that take the most time themselves.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnServer } from '../tooling/api/server-process.ts';
import { load } from './load.mts';
import { bootstrap, seedSessions, tempDir } from './support.mts';

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: {
		connections: { type: 'string', default: '10' },
		seconds: { type: 'string', default: '10' },
		post: { type: 'boolean', default: false },
	},
});
const post = values.post;

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface Profile {
	nodes: ProfileNode[];
	samples: number[];
}

const dir = tempDir('profile');
const databasePath = join(dir, 'db.sqlite');
const boot = bootstrap(databasePath);
const { versionId, sessionIds } = seedSessions(databasePath, boot, 10_000);
const path = post
	? '/sessions'
	: (positionals[0] ?? '/sessions?limit=100').replace('{sessionId}', sessionIds[5_000]);
const profiles = join(dir, 'profiles');
const server = await spawnServer({
	DATABASE_PATH: databasePath,
	RATE_LIMIT_REQUESTS: '1000000000',
	NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles}`,
});
let result;
try {
	result = await load({
		url: `${server.url}${path}`,
		key: boot.api_key,
		connections: Number(values.connections),
		seconds: Number(values.seconds),
		...(post
			? {
					method: 'POST' as const,
					body: { title: 'Profiled', lab_version_id: versionId, capacity: 10 },
				}
			: {}),
	});
} finally {
	await server.stop();
}
const file = readdirSync(profiles).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error('the server wrote no CPU profile');
const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as Profile;
rmSync(dir, { recursive: true, force: true });

/** Where a function lives, as an area of the time. */
function areaOf({ functionName, url }: ProfileNode['callFrame']): string {
	if (functionName === '(garbage collector)') return 'garbage collection';
	if (functionName === '(idle)' || functionName === '(program)') return functionName;
	if (
		url.includes('better-sqlite3') ||
		(/^(all|get|run|iterate)$/.test(functionName) && url === '')
	)
		return 'SQLite (better-sqlite3)';
	if (url.includes('/zod/')) return 'zod';
	if (url.includes('/express/') || url.includes('/router/')) return 'Express';
	const ours = /\/server\/src\/([a-z-]+)\//.exec(url);
	if (ours) return `server/src/${ours[1]}/`;
	if (
		url.startsWith('node:internal/http') ||
		url.startsWith('node:_http') ||
		url.startsWith('node:http')
	)
		return "Node's HTTP";
	if (url.startsWith('node:') || url === '') return 'Node and V8, other';
	return url.replace(/^.*node_modules\//, '').split('/')[0];
}

const selfSamples = new Map<number, number>();
for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
const busy = profile.nodes.filter((node) => node.callFrame.functionName !== '(idle)');
const total = busy.reduce((sum, node) => sum + (selfSamples.get(node.id) ?? 0), 0);
const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of busy) {
	const samples = selfSamples.get(node.id) ?? 0;
	const area = areaOf(node.callFrame);
	byArea.set(area, (byArea.get(area) ?? 0) + samples);
	const { functionName, url, lineNumber } = node.callFrame;
	const where = url
		? `${url.replace(/^.*\/(node_modules|server\/src)\//, '')}:${lineNumber + 1}`
		: '(native)';
	const name = `${functionName || '(anonymous)'} ${where}`;
	byFunction.set(name, (byFunction.get(name) ?? 0) + samples);
}
const share = (samples: number) => `${((100 * samples) / total).toFixed(1)} %`;
console.log(
	`${post ? 'POST' : 'GET'} ${path}, ${values.connections} connections, ${values.seconds} s: ${Math.round(result.requestsPerSecond)} req/s, ${result.errors} errors; ${total} busy samples`,
);
console.log('\nby area (self time):');
for (const [area, samples] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, 14))
	console.log(`  ${share(samples).padStart(7)}  ${area}`);
console.log('\nfunctions taking the most time themselves:');
for (const [name, samples] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 15))
	console.log(`  ${share(samples).padStart(7)}  ${name}`);
