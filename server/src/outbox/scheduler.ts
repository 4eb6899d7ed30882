/** An endpoint with deliveries to send, and its organization. */
export interface Endpoint {
	webhook_id: string;
	org_id: string;
}

export interface SchedulerLimits {
	/** Sends in flight at once, in all. */
	total: number;
	/** Sends in flight at once to one endpoint: the next goes when one is answered. */
	perEndpoint: number;
	/** Sends in flight at once to one organization's endpoints: the others' always find a slot. */
	perOrg: number;
}

/**
 * Who may be sent to next, and how much: the outbox's fairness, alone, without SQL or HTTP. It
 * counts the sends in flight to each endpoint and of each organization, and hands out the free
 * slots organization by organization, then endpoint by endpoint, starting each time with another
 * one: each organization first gets its share, then what the others left. So one organization's many
 * endpoints, or one endpoint's long backlog, go at their own pace and hold up no one else's deliveries.
 */
export class DeliveryScheduler {
	readonly #limits: SchedulerLimits;
	readonly #toEndpoint = new Map<string, number>();
	readonly #ofOrg = new Map<string, number>();
	#inFlight = 0;
	/** Advanced by each plan, so that each starts with another organization and endpoint. */
	#rotation = 0;

	constructor(limits: SchedulerLimits) {
		this.#limits = limits;
	}

	/** Sends in flight. */
	get inFlight(): number {
		return this.#inFlight;
	}

	/** Sends that may start now, in all. */
	get free(): number {
		return this.#limits.total - this.#inFlight;
	}

	started(endpoint: Endpoint): void {
		this.#inFlight++;
		count(this.#toEndpoint, endpoint.webhook_id, +1);
		count(this.#ofOrg, endpoint.org_id, +1);
	}

	finished(endpoint: Endpoint): void {
		this.#inFlight--;
		count(this.#toEndpoint, endpoint.webhook_id, -1);
		count(this.#ofOrg, endpoint.org_id, -1);
	}

	/** Whether a send to the endpoint could start now, as far as it and its organization go. */
	canSend(endpoint: Endpoint): boolean {
		return this.#slotsOf(endpoint.webhook_id) > 0 && this.#orgSlotsOf(endpoint.org_id) > 0;
	}

	/**
	 * The sends to start now among `endpoints` (those with deliveries to send): `take(webhookId,
	 * count)` takes up to `count` due deliveries of one endpoint and returns them (fewer when fewer
	 * are due). Call `started` for each one returned once its send starts.
	 */
	plan<T>(endpoints: readonly Endpoint[], take: (webhookId: string, count: number) => T[]): T[] {
		const taken: T[] = [];
		const total = this.free;
		const byOrg = new Map<string, string[]>();
		for (const { webhook_id, org_id } of endpoints) {
			if (!byOrg.has(org_id)) byOrg.set(org_id, []);
			byOrg.get(org_id)!.push(webhook_id);
		}
		this.#rotation++;
		const orgs = rotated([...byOrg.keys()], this.#rotation);
		const orgLeft = new Map(orgs.map((org) => [org, this.#orgSlotsOf(org)]));
		const endpointLeft = new Map<string, number>();
		for (const pass of ['share', 'rest'] as const) {
			for (const [index, org] of orgs.entries()) {
				const free = total - taken.length;
				if (free <= 0) return taken;
				const share = pass === 'share' ? Math.ceil(free / (orgs.length - index)) : free;
				let limit = Math.min(share, orgLeft.get(org)!);
				for (const webhookId of rotated(byOrg.get(org)!, this.#rotation)) {
					if (limit <= 0) break;
					const left = endpointLeft.get(webhookId) ?? this.#slotsOf(webhookId);
					const wanted = Math.min(left, limit);
					if (wanted <= 0) continue;
					const due = take(webhookId, wanted);
					taken.push(...due);
					limit -= due.length;
					orgLeft.set(org, orgLeft.get(org)! - due.length);
					// An endpoint with fewer due than it could take has none left to take.
					endpointLeft.set(webhookId, due.length < wanted ? 0 : left - due.length);
				}
			}
		}
		return taken;
	}

	/**
	 * The sends an endpoint may be given now: its free slots, a quarter of them at a time once it has
	 * sends in flight, so that a backlog is taken (like its answers recorded) a few at once rather
	 * than in a transaction per answer.
	 */
	#slotsOf(webhookId: string): number {
		const { perEndpoint } = this.#limits;
		const busy = this.#toEndpoint.get(webhookId) ?? 0;
		const free = perEndpoint - busy;
		return busy === 0 || free >= Math.ceil(perEndpoint / 4) ? free : 0;
	}

	#orgSlotsOf(orgId: string): number {
		return this.#limits.perOrg - (this.#ofOrg.get(orgId) ?? 0);
	}
}

/** `items` starting at `start` (modulo their number), and wrapping around. */
function rotated<T>(items: readonly T[], start: number): T[] {
	const at = items.length === 0 ? 0 : start % items.length;
	return [...items.slice(at), ...items.slice(0, at)];
}

/** Adds `by` to the count of `key`, forgetting a key whose count is back to 0. */
function count(counts: Map<string, number>, key: string, by: number): void {
	const now = (counts.get(key) ?? 0) + by;
	if (now === 0) counts.delete(key);
	else counts.set(key, now);
}
