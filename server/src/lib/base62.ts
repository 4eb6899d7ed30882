import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
	let out = '';
	while (out.length < length) {
		for (const byte of randomBytes(length * 2)) {
			if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
		}
	}
	return out;
}

/** Fixed-width base62 encoding of a non-negative integer, left-padded with '0'. */
export function toBase62(value: number, width: number): string {
	let out = '';
	let rest = value;
	do {
		out = ALPHABET[rest % 62] + out;
		rest = Math.floor(rest / 62);
	} while (rest > 0);
	return out.padStart(width, '0');
}
