import { isoAt } from '../core/clock.ts';
import type { RetentionStep } from '../repositories/retention-step.ts';
import { DomainService, type ServiceDeps } from './domain-service.ts';
import { dayAgo } from './health-report.ts';

/** Rows deleted per transaction: short enough that requests between batches barely wait. */
const BATCH = 500;

/** One step of a prune, from after the seq `after`. */
type Step = (after: number) => RetentionStep;

/**
 * How long the store keeps what grows with use: finished webhook deliveries (with their attempts
 * and the answers kept) for `deliveryMs`, events for `eventMs`, both by the event's time. A delivery
 * still being sent is kept whatever its age, and so is an event a kept delivery refers to.
 */
export class RetentionService extends DomainService {
	readonly #eventMs: number;
	readonly #deliveryMs: number;

	constructor(deps: ServiceDeps, options: { eventMs: number; deliveryMs: number }) {
		super(deps);
		this.#eventMs = options.eventMs;
		this.#deliveryMs = options.deliveryMs;
	}

	/** The shorter of the two retentions: how often a prune is worth running follows from it. */
	get shortestMs(): number {
		return Math.min(this.#eventMs, this.#deliveryMs);
	}

	/**
	 * Deletes what is past its retention, oldest first, a batch per transaction; between batches it
	 * awaits `pause`, which lets requests run, and stops when that answers false (the server closing).
	 */
	async prune(pause: () => Promise<boolean>): Promise<{ deliveries: number; events: number }> {
		const now = this.clock.now();
		const deliveryCutoff = isoAt(now - this.#deliveryMs);
		const eventCutoff = isoAt(now - this.#eventMs);
		const deliveries = await this.#inSteps(pause, (after) =>
			this.repos.outbox.retention.pruneFinalBefore(after, deliveryCutoff, BATCH),
		);
		const events = await this.#inSteps(pause, (after) =>
			this.repos.events.pruneBefore(after, eventCutoff, BATCH),
		);
		// The endpoints' attempt buckets older than `GET …/health` reads: a few hundred rows an hour.
		this.transaction(() => this.repos.outbox.buckets.pruneBefore(dayAgo(now)));
		return { deliveries, events };
	}

	async #inSteps(pause: () => Promise<boolean>, step: Step): Promise<number> {
		let deleted = 0;
		let after = 0;
		for (;;) {
			const done = this.transaction(() => step(after));
			deleted += done.deleted;
			if (done.next === null || !(await pause())) return deleted;
			after = done.next;
		}
	}
}
