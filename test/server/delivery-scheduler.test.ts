import { DeliveryScheduler, type Endpoint } from '../../server/src/outbox/scheduler.ts';

// The outbox's fairness on its own: who is sent to next and how much, with no database and no HTTP.
// `due` stands for the deliveries each endpoint has due; a plan takes from it.
const LIMITS = { total: 32, perEndpoint: 16, perOrg: 24 };

function endpoints(spec: Record<string, Record<string, number>>) {
	const due = new Map<string, number>();
	const list: Endpoint[] = [];
	for (const [org, ofOrg] of Object.entries(spec))
		for (const [webhook, count] of Object.entries(ofOrg)) {
			list.push({ webhook_id: webhook, org_id: org });
			due.set(webhook, count);
		}
	const orgOf = new Map(list.map((endpoint) => [endpoint.webhook_id, endpoint.org_id]));
	/** Takes up to `count` of the endpoint's due deliveries, as the queue would claim them. */
	const take = (webhook: string, count: number): Endpoint[] => {
		const taken = Math.min(count, due.get(webhook)!);
		due.set(webhook, due.get(webhook)! - taken);
		return Array.from({ length: taken }, () => ({
			webhook_id: webhook,
			org_id: orgOf.get(webhook)!,
		}));
	};
	return { list, take, due };
}

const tally = (planned: Endpoint[], key: 'webhook_id' | 'org_id') => {
	const counts: Record<string, number> = {};
	for (const endpoint of planned) counts[endpoint[key]] = (counts[endpoint[key]] ?? 0) + 1;
	return counts;
};

describe('the delivery scheduler', () => {
	it('gives each organization its share of the free slots, each endpoint at most its own', () => {
		const scheduler = new DeliveryScheduler(LIMITS);
		const { list, take } = endpoints({ a: { a1: 100 }, b: { b1: 100 } });
		expect(tally(scheduler.plan(list, take), 'webhook_id')).toEqual({ a1: 16, b1: 16 });
	});

	it('hands what one organization leaves to the others, up to each organization’s bound', () => {
		const scheduler = new DeliveryScheduler(LIMITS);
		const { list, take } = endpoints({
			a: { a1: 2 },
			b: { b1: 100, b2: 100, b3: 100 },
		});
		const planned = scheduler.plan(list, take);
		expect(tally(planned, 'org_id')).toEqual({ a: 2, b: 24 });
		expect(planned).toHaveLength(26);
	});

	it('holds one organization to its bound however many endpoints it has, so another always finds a slot', () => {
		const scheduler = new DeliveryScheduler(LIMITS);
		const busy = endpoints({ a: { a1: 100, a2: 100, a3: 100, a4: 100 } });
		for (const endpoint of scheduler.plan(busy.list, busy.take)) scheduler.started(endpoint);
		expect(scheduler.inFlight).toBe(24);
		const later = endpoints({ a: { a5: 100 }, b: { b1: 100 } });
		expect(tally(scheduler.plan(later.list, later.take), 'org_id')).toEqual({ b: 8 });
		expect(scheduler.canSend({ webhook_id: 'a5', org_id: 'a' })).toBe(false);
		expect(scheduler.canSend({ webhook_id: 'b1', org_id: 'b' })).toBe(true);
	});

	it('starts each plan with another organization and endpoint', () => {
		const firsts: string[] = [];
		const scheduler = new DeliveryScheduler({ total: 1, perEndpoint: 1, perOrg: 1 });
		for (let round = 0; round < 3; round++) {
			const { list, take } = endpoints({ a: { a1: 5 }, b: { b1: 5 }, c: { c1: 5 } });
			firsts.push(scheduler.plan(list, take)[0].webhook_id);
		}
		expect(new Set(firsts).size).toBe(3);
	});

	it('gives an endpoint with sends in flight more only once a quarter of its slots is free', () => {
		const scheduler = new DeliveryScheduler(LIMITS);
		const endpoint = { webhook_id: 'a1', org_id: 'a' };
		for (let i = 0; i < 13; i++) scheduler.started(endpoint);
		expect(scheduler.canSend(endpoint)).toBe(false); // 3 free of 16: less than 4
		const { list, take } = endpoints({ a: { a1: 100 } });
		expect(scheduler.plan(list, take)).toEqual([]);
		scheduler.finished(endpoint);
		expect(scheduler.canSend(endpoint)).toBe(true);
		expect(scheduler.plan(list, take)).toHaveLength(4);
	});

	it('takes no more than the free slots in all, and nothing once they are used', () => {
		const scheduler = new DeliveryScheduler({ total: 10, perEndpoint: 16, perOrg: 24 });
		const { list, take, due } = endpoints({ a: { a1: 100 }, b: { b1: 3 } });
		const planned = scheduler.plan(list, take);
		expect(planned).toHaveLength(10);
		expect(due.get('b1')).toBe(0);
		for (const endpoint of planned) scheduler.started(endpoint);
		expect(scheduler.free).toBe(0);
		expect(scheduler.plan(list, take)).toEqual([]);
	});
});
