import { randomInt } from 'node:crypto';

// Uppercase letters and digits without the look-alikes 0/O, 1/I/L, so codes survive being read aloud.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const JOIN_CODE_LENGTH = 8;

export function generateJoinCode(): string {
	let code = '';
	for (let i = 0; i < JOIN_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
	return code;
}
