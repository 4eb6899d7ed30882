/**
 * How the request side tells the outbox that deliveries became due. Called inside the transaction
 * that queued them: the outbox looks at its store only after that transaction has committed (on a
 * later turn of the event loop), so it never misses them.
 */
export interface OutboxNotice {
	deliveriesQueued(): void;
}
