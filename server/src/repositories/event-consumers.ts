import type { Database } from 'better-sqlite3';

export interface EventConsumerRow {
	seq: number;
	org_id: string;
	id: string;
	description: string | null;
	/** JSON array text; null: every type. */
	event_types: string | null;
	/** Events after this seq are new to the consumer. */
	position_seq: number;
	position_event_id: string | null;
	position_occurred_at: string | null;
	created_at: string;
	last_read_at: string;
}
type NewConsumer = Omit<EventConsumerRow, 'seq'>;
export type ConsumerPosition = Pick<
	EventConsumerRow,
	'position_seq' | 'position_event_id' | 'position_occurred_at'
>;
type ConsumerRead = ConsumerPosition &
	Pick<EventConsumerRow, 'seq' | 'event_types' | 'last_read_at'>;

export interface EventBatchRow {
	consumer_seq: number;
	id: string;
	/** JSON array text of the events' seqs, oldest first. */
	event_seqs: string;
	taken_at: string;
	attempts: number;
}

/** The readers of the activity log whose position the API keeps, and the batches handed out to them. */
export class EventConsumerRepository {
	readonly #insert;
	readonly #find;
	readonly #count;
	readonly #page;
	readonly #recordRead;
	readonly #delete;
	readonly #idleBefore;
	readonly #insertBatch;
	readonly #findBatch;
	readonly #openBatches;
	readonly #countOpen;
	readonly #handedOutAgain;
	readonly #deleteBatch;

	constructor(db: Database) {
		this.#insert = db.prepare<NewConsumer>(
			`INSERT INTO event_consumers (org_id, id, description, event_types, position_seq, position_event_id,
         position_occurred_at, created_at, last_read_at)
       VALUES (@org_id, @id, @description, @event_types, @position_seq, @position_event_id,
         @position_occurred_at, @created_at, @last_read_at)`,
		);
		this.#find = db.prepare<[string, string], EventConsumerRow>(
			'SELECT * FROM event_consumers WHERE org_id = ? AND id = ?',
		);
		this.#count = db
			.prepare<[string], number>('SELECT count(*) FROM event_consumers WHERE org_id = ?')
			.pluck();
		this.#page = db.prepare<[string, number, number], EventConsumerRow>(
			'SELECT * FROM event_consumers WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?',
		);
		this.#recordRead = db.prepare<ConsumerRead>(
			`UPDATE event_consumers SET event_types = @event_types,
         position_seq = @position_seq, position_event_id = @position_event_id,
         position_occurred_at = @position_occurred_at, last_read_at = @last_read_at
       WHERE seq = @seq`,
		);
		this.#delete = db.prepare<[number]>('DELETE FROM event_consumers WHERE seq = ?');
		this.#idleBefore = db
			.prepare<[string], number>('SELECT seq FROM event_consumers WHERE last_read_at < ?')
			.pluck();
		this.#insertBatch = db.prepare<Omit<EventBatchRow, 'attempts'>>(
			`INSERT INTO event_batches (consumer_seq, id, event_seqs, taken_at)
       VALUES (@consumer_seq, @id, @event_seqs, @taken_at)`,
		);
		this.#findBatch = db.prepare<[number, string], EventBatchRow>(
			'SELECT * FROM event_batches WHERE consumer_seq = ? AND id = ?',
		);
		this.#openBatches = db.prepare<[number], EventBatchRow>(
			'SELECT * FROM event_batches WHERE consumer_seq = ? ORDER BY taken_at, id',
		);
		this.#countOpen = db
			.prepare<[number], number>('SELECT count(*) FROM event_batches WHERE consumer_seq = ?')
			.pluck();
		this.#handedOutAgain = db.prepare<[number, string]>(
			'UPDATE event_batches SET attempts = attempts + 1 WHERE consumer_seq = ? AND id = ?',
		);
		this.#deleteBatch = db.prepare<[number, string]>(
			'DELETE FROM event_batches WHERE consumer_seq = ? AND id = ?',
		);
	}

	insert(consumer: NewConsumer): EventConsumerRow {
		this.#insert.run(consumer);
		return this.find(consumer.org_id, consumer.id)!;
	}

	find(orgId: string, id: string): EventConsumerRow | undefined {
		return this.#find.get(orgId, id);
	}

	count(orgId: string): number {
		return this.#count.get(orgId)!;
	}

	page(orgId: string, afterSeq: number, limit: number): EventConsumerRow[] {
		return this.#page.all(orgId, afterSeq, limit);
	}

	/** Records a read: the types read, where the consumer now stands, and when. */
	recordRead(read: ConsumerRead): void {
		this.#recordRead.run(read);
	}

	/** Deletes the consumer with its open batches. */
	delete(seq: number): void {
		this.#delete.run(seq);
	}

	/** The consumers that last read before `time`. */
	idleBefore(time: string): number[] {
		return this.#idleBefore.all(time);
	}

	insertBatch(consumerSeq: number, id: string, eventSeqs: number[], takenAt: string): void {
		this.#insertBatch.run({
			consumer_seq: consumerSeq,
			id,
			event_seqs: JSON.stringify(eventSeqs),
			taken_at: takenAt,
		});
	}

	findBatch(consumerSeq: number, id: string): EventBatchRow | undefined {
		return this.#findBatch.get(consumerSeq, id);
	}

	/** The consumer's open batches, oldest first. */
	openBatches(consumerSeq: number): EventBatchRow[] {
		return this.#openBatches.all(consumerSeq);
	}

	countOpenBatches(consumerSeq: number): number {
		return this.#countOpen.get(consumerSeq)!;
	}

	/** Counts one more hand-out of an open batch. */
	handedOutAgain(consumerSeq: number, id: string): void {
		this.#handedOutAgain.run(consumerSeq, id);
	}

	/** Closes a batch: its work is done. */
	deleteBatch(consumerSeq: number, id: string): void {
		this.#deleteBatch.run(consumerSeq, id);
	}
}
