import { connect, type Socket } from 'node:net';

export interface RawResponse {
	status: number;
	/** Header names lower-cased; repeated headers joined with ", ". */
	headers: Record<string, string>;
	body: string;
	/** The JSON body, or undefined when it is not JSON. */
	json: any;
}

/**
 * A connection on which the test writes bytes exactly as it wants (what fetch refuses to send:
 * odd Host headers, absolute targets, bodies shorter than declared) and reads whole responses.
 */
export class RawConnection {
	readonly socket: Socket;
	/** Resolves when the server has closed its side of the connection. */
	readonly closed: Promise<void>;
	#buffer = Buffer.alloc(0);
	#waiters: Array<() => void> = [];
	#ended = false;

	private constructor(socket: Socket) {
		this.socket = socket;
		this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
		socket.on('data', (chunk: Buffer) => {
			this.#buffer = Buffer.concat([this.#buffer, chunk]);
			this.#notify();
		});
		socket.on('end', () => {
			this.#ended = true;
			this.#notify();
		});
		socket.on('error', () => {
			this.#ended = true;
			this.#notify();
		});
	}

	static open(port: number): Promise<RawConnection> {
		return new Promise((resolve, reject) => {
			const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
			socket.once('error', reject);
		});
	}

	write(data: string | Buffer): void {
		this.socket.write(data);
	}

	/** The next complete response (a final status; 1xx answers are returned too); `toHead`: it answers a HEAD, so has no body. */
	async response(toHead = false): Promise<RawResponse> {
		for (;;) {
			const parsed = this.#take(toHead);
			if (parsed) return parsed;
			if (this.#ended)
				throw new Error(
					`connection closed before a whole response: ${JSON.stringify(this.#buffer.toString())}`,
				);
			await new Promise<void>((resolve) => this.#waiters.push(resolve));
		}
	}

	close(): void {
		this.socket.destroy();
	}

	#notify(): void {
		const waiters = this.#waiters;
		this.#waiters = [];
		for (const wake of waiters) wake();
	}

	#take(toHead: boolean): RawResponse | null {
		const headEnd = this.#buffer.indexOf('\r\n\r\n');
		if (headEnd < 0) return null;
		const [statusLine, ...lines] = this.#buffer
			.subarray(0, headEnd)
			.toString('latin1')
			.split('\r\n');
		const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
		const headers: Record<string, string> = {};
		for (const line of lines) {
			const colon = line.indexOf(':');
			const name = line.slice(0, colon).trim().toLowerCase();
			const value = line.slice(colon + 1).trim();
			headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
		}
		const length =
			toHead || status < 200 || status === 204 || status === 304
				? 0
				: Number(headers['content-length'] ?? NaN);
		if (Number.isNaN(length)) {
			if (!this.#ended) return null; // body runs until the connection closes
		} else if (this.#buffer.length < headEnd + 4 + length) {
			return null;
		}
		const end = Number.isNaN(length) ? this.#buffer.length : headEnd + 4 + length;
		const body = this.#buffer.subarray(headEnd + 4, end).toString('utf8');
		this.#buffer = this.#buffer.subarray(end);
		let json: unknown;
		try {
			json = body ? JSON.parse(body) : undefined;
		} catch {
			json = undefined;
		}
		return { status, headers, body, json };
	}
}

/** Sends one raw request on a new connection and returns the first final response. */
export async function rawRequest(
	port: number,
	request: string | Buffer,
): Promise<RawResponse & { connection: RawConnection }> {
	const connection = await RawConnection.open(port);
	connection.write(request);
	const toHead = Buffer.from(request.slice(0, 5)).toString('latin1') === 'HEAD ';
	let response = await connection.response(toHead);
	while (response.status < 200) response = await connection.response(toHead);
	return { ...response, connection };
}

/** An HTTP/1.1 request head with CRLF line ends; pass `null` as a header value to leave it out. */
export function head(
	method: string,
	target: string,
	headers: Record<string, string | number | null>,
): string {
	const lines = Object.entries(headers)
		.filter(([, value]) => value !== null)
		.map(([name, value]) => `${name}: ${value}`);
	return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}
