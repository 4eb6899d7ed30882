import { cpus } from 'node:os';
import { benchWebhookDelivery } from './webhook-delivery.mts';

// `npm run bench`: every benchmark on this machine in one run, one table at the end.
// Benchmarks report; no test depends on their numbers.
const rows: Array<Record<string, string | number>> = [];

for (const endpoints of [1, 10, 100]) {
  // Latency is measured at a load the dispatcher can sustain (at most 2,000 deliveries/s offered).
  const ratePerSecond = Math.min(200, 2000 / endpoints);
  const result = await benchWebhookDelivery({ endpoints, backlog: Math.max(50, Math.round(5000 / endpoints)), steadyChanges: Math.round(ratePerSecond * 5), ratePerSecond });
  rows.push({
    benchmark: `webhook delivery, ${endpoints} endpoint${endpoints === 1 ? '' : 's'}`,
    'drain deliveries/s': result.deliveriesPerSecond,
    'latency load (deliveries/s)': ratePerSecond * endpoints,
    'p50 change→receiver (ms)': result.latencyP50Ms,
    'p99 change→receiver (ms)': result.latencyP99Ms,
  });
  console.error(`done: ${rows.at(-1)!.benchmark}`);
}

console.log(`Node ${process.version}, ${cpus().length} × ${cpus()[0].model}`);
console.table(rows);
