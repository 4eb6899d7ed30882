import {
	createCipheriv,
	createDecipheriv,
	createSecretKey,
	randomBytes,
	type KeyObject,
} from 'node:crypto';

export const CURSOR_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const POSITION_BYTES = 8;
const SEALED_BYTES = IV_BYTES + POSITION_BYTES + TAG_BYTES;

/**
 * Turns a list position (a row sequence number shared by every organization) into an opaque cursor
 * and back. AES-256-GCM hides the number, so cursors say nothing about how much others create, and
 * its tag binds a cursor to the list it came from: one of another organization or list does not open.
 */
export class CursorSeal {
	/** Made once: a cipher given the raw bytes makes a key object of them on every call. */
	readonly #key: KeyObject;

	constructor(key: Buffer) {
		if (key.length !== CURSOR_KEY_BYTES)
			throw new Error(`A cursor key has ${CURSOR_KEY_BYTES} bytes.`);
		this.#key = createSecretKey(key);
	}

	/** `scope` names the list, e.g. the organization and the path: a cursor opens only in the same scope. */
	seal(position: number, scope: string): string {
		const iv = randomBytes(IV_BYTES);
		const cipher = createCipheriv('aes-256-gcm', this.#key, iv).setAAD(Buffer.from(scope));
		const plain = Buffer.alloc(POSITION_BYTES);
		plain.writeBigUInt64BE(BigInt(position));
		return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString(
			'base64url',
		);
	}

	/** The position sealed in `cursor`, or null when it was not sealed by this server for this scope. */
	open(cursor: string, scope: string): number | null {
		const sealed = Buffer.from(cursor, 'base64url');
		if (sealed.length !== SEALED_BYTES || sealed.toString('base64url') !== cursor) return null;
		try {
			const decipher = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(0, IV_BYTES))
				.setAAD(Buffer.from(scope))
				.setAuthTag(sealed.subarray(IV_BYTES + POSITION_BYTES));
			const plain = Buffer.concat([
				decipher.update(sealed.subarray(IV_BYTES, IV_BYTES + POSITION_BYTES)),
				decipher.final(),
			]);
			const position = plain.readBigUInt64BE();
			return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : null;
		} catch {
			return null;
		}
	}
}
