/**
 * 128 random bits as hex: element ids and Idempotency-Keys. Not crypto.randomUUID, which a browser
 * offers only in a secure context, and the console may be opened over plain http on a LAN address.
 */
export function randomId(): string {
	return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
		byte.toString(16).padStart(2, '0'),
	).join('');
}
