import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';

const RESOLUTION_MS = 10;

/** A histogram of this thread's event-loop delay, sampled every 10 ms; read it with `delayMs`. */
export function eventLoopHistogram(): ELDHistogram {
	const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
	histogram.enable();
	return histogram;
}

/**
 * A value of that histogram (ns) as the loop's delay in ms. Node records the whole time between two
 * ticks of its 10 ms timer (an idle loop reads 10 ms at p50, ~11.6 at p99): the delay is what exceeds
 * the interval, as @fastify/under-pressure computes it. Read raw, a 2 ms delay showed as 12 ms and
 * its changes five times smaller than they were.
 */
export function delayMs(ns: number): number {
	return Math.round(Math.max(0, ns / 1e6 - RESOLUTION_MS) * 100) / 100;
}
