const TWO_TO_32 = 2 ** 32;
/** Copies shorter than this are made a byte at a time. */
const SHORT_COPY = 24;

/**
 * A protobuf message written by hand into `body`, from its start: varints, fixed-width numbers, and
 * length-delimited fields whose length is fixed up once their content is written. A write past the
 * body's end is not made, but `at` still moves past the end: whoever writes a message checks `at`
 * once it is complete, and takes the message back if it did not fit.
 */
export class ProtobufBody {
	readonly body: Buffer;
	/** The body, for four bytes a store. */
	readonly view: DataView;
	/** Where the next byte goes. */
	at: number;

	constructor(bytes: number) {
		this.body = Buffer.allocUnsafe(bytes);
		this.view = new DataView(this.body.buffer, this.body.byteOffset, bytes);
		this.at = 0;
	}

	/** True when everything written so far fits. */
	fits(): boolean {
		return this.at <= this.body.length;
	}

	byte(value: number): void {
		this.body[this.at++] = value;
	}

	varint(value: number): void {
		this.at = writeVarint(this.body, this.at, value);
	}

	/** A length-delimited field whose length is not known yet: `reserved` bytes are kept for it. */
	open(fieldTag: number, reserved: number): number {
		this.byte(fieldTag);
		const lengthAt = this.at;
		this.at += reserved;
		return lengthAt;
	}

	/** Writes the length of the field opened at `lengthAt`, moving its content if it needs more or fewer bytes. */
	close(lengthAt: number, reserved: number): void {
		const length = this.at - lengthAt - reserved;
		if (reserved === 1 && length < 0x80) {
			this.body[lengthAt] = length;
			return;
		}
		const size = varintSize(length);
		if (size !== reserved) {
			const end = this.at + size - reserved;
			// Moved only when all of it fits.
			if (end <= this.body.length)
				this.body.copyWithin(lengthAt + size, lengthAt + reserved, this.at);
			this.at = end;
		}
		writeVarint(this.body, lengthAt, length);
	}

	/** `length` bytes of `source`, from `from`. */
	copy(source: Buffer, from: number, length: number): void {
		const { body, at } = this;
		if (at + length <= body.length) {
			// Attribute keys and name prefixes: a loop is cheaper than a call into Buffer's native
			// copy (~30 ns) for fewer than about 24 bytes.
			if (length < SHORT_COPY)
				for (let index = 0; index < length; index++) body[at + index] = source[from + index];
			else source.copy(body, at, from, from + length);
		}
		this.at = at + length;
	}

	/** A length-delimited field holding `value` in UTF-8. */
	string(fieldTag: number, value: string): void {
		const lengthAt = this.open(fieldTag, 1);
		this.utf8(value);
		this.close(lengthAt, 1);
	}

	/**
	 * `value` in UTF-8 (unpaired surrogates as U+FFFD), ASCII a character at a time: most strings
	 * here are short and ASCII, and a call into Buffer's native write costs more than they do.
	 */
	utf8(value: string): void {
		const { body } = this;
		const start = this.at;
		const length = value.length;
		for (let index = 0; index < length; index++) {
			const code = value.charCodeAt(index);
			if (code >= 0x80) {
				const bytes = Buffer.byteLength(value);
				if (start + bytes <= body.length) body.write(value, start, 'utf8');
				this.at = start + bytes;
				return;
			}
			body[start + index] = code;
		}
		this.at = start + length;
	}

	/** All of `bytes` (a field written before, in full). */
	append(bytes: Buffer): void {
		const { length } = bytes;
		if (length < SHORT_COPY || this.at + length > this.body.length) this.copy(bytes, 0, length);
		else {
			// Straight into the body: `Buffer.copy` checks and converts its arguments first, which cost
			// a request span's fields, copied whole, more than the copy itself.
			this.body.set(bytes, this.at);
			this.at += length;
		}
	}

	/** Nanoseconds since the Unix epoch, from milliseconds to the microsecond, as 64 bits in two halves. */
	time(fieldTag: number, ms: number): void {
		const at = this.at;
		this.at = at + 9;
		if (!this.fits()) return;
		const micros = Math.round(ms * 1000);
		const microsHigh = Math.floor(micros / TWO_TO_32);
		const lowNanos = (micros - microsHigh * TWO_TO_32) * 1000;
		const carry = Math.floor(lowNanos / TWO_TO_32);
		this.body[at] = fieldTag;
		this.view.setUint32(at + 1, lowNanos - carry * TWO_TO_32, true);
		this.view.setUint32(at + 5, microsHigh * 1000 + carry, true);
	}
}

export function varintSize(value: number): number {
	let size = 1;
	while (value >= 0x80) {
		value = Math.floor(value / 0x80);
		size++;
	}
	return size;
}

/** A non-negative integer up to 2^53 as a varint at `at` of `body`; returns where it ends. */
export function writeVarint(body: Buffer, at: number, value: number): number {
	while (value >= 0x80) {
		body[at++] = value % 0x80 | 0x80;
		value = Math.floor(value / 0x80);
	}
	body[at++] = value;
	return at;
}

export function varintBytes(value: number): Buffer {
	const bytes = Buffer.alloc(varintSize(value));
	writeVarint(bytes, 0, value);
	return bytes;
}
