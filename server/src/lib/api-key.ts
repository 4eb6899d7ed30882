import { createHash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62, toBase62 } from './base62.ts';

// tlk_ + 32 random base62 characters + 6 base62 characters of CRC32(random part):
// the checksum lets secret scanners recognise a real key and lets us refuse typos without a lookup.
const KEY_PATTERN = /^tlk_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
const KEY_PREFIX_LENGTH = 12;

export function generateApiKey(): string {
	const random = randomBase62(32);
	return `tlk_${random}${checksum(random)}`;
}

export function isWellFormedApiKey(key: string): boolean {
	const match = KEY_PATTERN.exec(key);
	return match !== null && checksum(match[1]) === match[2];
}

export function keyPrefix(key: string): string {
	return key.slice(0, KEY_PREFIX_LENGTH);
}

export function hashApiKey(key: string): Buffer {
	return createHash('sha256').update(key).digest();
}

export function hashesEqual(a: Buffer, b: Buffer): boolean {
	return a.length === b.length && timingSafeEqual(a, b);
}

function checksum(random: string): string {
	return toBase62(crc32(random), 6);
}
