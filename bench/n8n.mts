import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, ROOT, SMOKE } from './support.mts';

// `npm run bench:n8n`: bench/n8n.bench.ts (through jest, for the real-n8n harness) in the real n8n
// of the end-to-end suite, then one table: medians, their ratio, and whether the ranges overlap.
const resultFile = join(tmpdir(), `traininglab-bench-n8n-${process.pid}.json`);
const started = Date.now();
console.error(
	'the package in a real n8n against n8n’s own nodes (installs n8n once, like the e2e)…',
);
const jest = spawnSync(
	join(ROOT, 'node_modules', '.bin', 'jest'),
	['-c', 'jest.bench.config.cjs', 'bench/n8n.bench.ts'],
	{
		cwd: ROOT,
		env: { ...process.env, BENCH_RESULT_FILE: resultFile, ...(SMOKE ? { BENCH_SMOKE: '1' } : {}) },
		encoding: 'utf8',
		stdio: ['ignore', 'inherit', 'inherit'],
	},
);
if (jest.status !== 0) throw new Error('bench/n8n.bench.ts failed (output above)');
const { n8n } = JSON.parse(readFileSync(resultFile, 'utf8')) as {
	n8n: Record<string, Record<'ours' | 'theirs', Array<{ rate: number }>>>;
};
rmSync(resultFile);

const WORKLOADS: Record<string, [string, string]> = {
	get: ['500 × Session → Get', 'HTTP Request GET /sessions/{id}'],
	create: ['300 × Session → Create', 'HTTP Request POST /sessions'],
	returnAll: ['Session → Get Many, Return All (5+ pages of 200)', 'HTTP Request with pagination'],
	deliveries: ['300 signed deliveries, Training Lab Trigger', 'Webhook node, Header Auth'],
};
console.log(
	`\nNode ${process.version}, ${cpus().length} × ${cpus()[0].model}; ${Math.round((Date.now() - started) / 1000)} s in all; n8n ${n8nVersion()}${SMOKE ? '; smoke run: every workload once at a few items (the labels give the full sizes), not judged' : ''}\n`,
);
console.log('| work | ours (median, range) | n8n’s own node | ratio | ranges overlap | target |');
console.log('|---|---|---|---|---|---|');
for (const [workload, [ours, theirs]] of Object.entries(WORKLOADS)) {
	const figures = n8n[workload];
	if (!figures) continue;
	const a = figures.ours.map((m) => m.rate);
	const b = figures.theirs.map((m) => m.rate);
	const ratio = median(a) / median(b);
	const overlap = Math.max(...a) >= Math.min(...b) && Math.max(...b) >= Math.min(...a);
	const range = (values: number[]) =>
		`${median(values).toFixed(0)}/s (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
	console.log(
		`| ${ours} | ${range(a)} | ${theirs}: ${range(b)} | ${ratio.toFixed(2)} | ${overlap ? 'yes' : 'no'} | ${SMOKE ? 'not judged' : `≥ 1.0: ${ratio >= 1 ? 'met' : 'MISSED'}`} |`,
	);
}

function n8nVersion(): string {
	const lock = JSON.parse(
		readFileSync(join(ROOT, 'test', 'e2e', 'n8n', '2.x', 'package-lock.json'), 'utf8'),
	);
	return lock.packages['node_modules/n8n'].version;
}
