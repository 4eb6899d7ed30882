import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's priority by `steps` nice levels (to 19 at most), so that when the
 * CPU is short the other threads of the process run first. Only where a thread can be named to
 * the scheduler (Linux: /proc/thread-self); elsewhere, or if refused, it stays as it is. Returns
 * whether it was lowered.
 */
export function lowerThisThreadsPriority(steps: number): boolean {
	try {
		const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
		setPriority(threadId, Math.min(19, getPriority(threadId) + steps));
		return true;
	} catch {
		return false;
	}
}
