import { randomBytes } from 'node:crypto';

/**
 * A new resource id: a UUID of version 7 (RFC 9562), 48 bits of Unix time in milliseconds followed
 * by 74 random bits — still unguessable, and in the order of creation. Every table keeps a UNIQUE
 * index on `id`; with random (version 4) ids each insert landed on a random page of it, so once the
 * indexes of sessions, events, deliveries and users outgrew SQLite's 16 MB page cache (22 MB after
 * half an hour of the soak), inserts read and rewrote pages all over them and the request p99 crept
 * up with the data. Ids in time order are appended at each index's right edge. `now` is the server's
 * clock (core/clock.ts), in Unix milliseconds.
 */
export function newResourceId(now: number): string {
	const bytes = randomBytes(16);
	bytes.writeUIntBE(now, 0, 6);
	bytes[6] = 0x70 | (bytes[6] & 0x0f); // version 7
	bytes[8] = 0x80 | (bytes[8] & 0x3f); // variant 10
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
