import {
	createServer,
	STATUS_CODES,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import { isIPv6 } from 'node:net';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { HttpLimits } from '../config.ts';
import { ApiError } from '../core/errors.ts';
import { bodyTooLarge, MAX_BODY_BYTES } from './json-body.ts';

/** Node's default maximum size of all request headers together (`--max-http-header-size`). */
export const MAX_HEADER_BYTES = 16 * 1024;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface HttpServer {
	server: Server;
	/**
	 * Stops accepting connections, closes idle keep-alive connections at once, lets the requests in
	 * flight finish with `Connection: close`, and resolves when the last connection is gone.
	 */
	shutdown(forceAfterMs: number): Promise<void>;
}

/**
 * The HTTP server in front of the app, with every limit set explicitly, and an enveloped answer for
 * what Node's parser refuses before the app sees a request (malformed requests, oversized headers,
 * timeouts, unknown `Expect`).
 */
export function createHttpServer(app: Handler, limits: HttpLimits): HttpServer {
	const inFlight = new Set<ServerResponse>();
	let closing = false;

	const handle: Handler = (req, res) => {
		inFlight.add(res);
		res.on('close', () => inFlight.delete(res));
		if (closing) res.setHeader('Connection', 'close');
		app(req, res);
	};

	const server = createServer(
		{
			// A missing Host is answered by the app with the envelope, not by Node with an empty 400.
			requireHostHeader: false,
			headersTimeout: limits.headersTimeoutMs,
			requestTimeout: limits.requestTimeoutMs,
			keepAliveTimeout: limits.keepAliveTimeoutMs,
			// Timeouts are enforced by a periodic sweep (30 s by default): sweep often enough to honour them.
			connectionsCheckingInterval: Math.max(
				10,
				Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)),
			),
			maxHeaderSize: MAX_HEADER_BYTES,
		},
		handle,
	);
	server.on('clientError', answerClientError);
	server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
		sendEnvelope(
			res,
			new ApiError('expectation_failed', 'Only "Expect: 100-continue" is supported.'),
		);
	});
	// Tell the client to send its body only when the declared size will be accepted.
	server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
		if (!declaresTooLargeBody(req)) res.writeContinue();
		handle(req, res);
	});

	let stopped: Promise<void> | undefined;
	const shutdown = (forceAfterMs: number): Promise<void> => {
		stopped ??= new Promise<void>((resolve) => {
			closing = true;
			for (const res of inFlight) {
				if (!res.headersSent) res.setHeader('Connection', 'close');
				else res.on('finish', () => setImmediate(() => server.closeIdleConnections()));
			}
			const force = setTimeout(() => server.closeAllConnections(), forceAfterMs);
			force.unref();
			server.close(() => {
				clearTimeout(force);
				resolve();
			});
			server.closeIdleConnections();
		});
		return stopped;
	};
	return { server, shutdown };
}

/** An error answered outside Express: the envelope, and the connection closed after it. */
function envelopeResponse(error: ApiError): {
	headers: Record<string, string | number>;
	body: string;
} {
	const body = JSON.stringify(error.toEnvelope());
	return {
		headers: {
			'Content-Type': 'application/json; charset=utf-8',
			'X-Content-Type-Options': 'nosniff',
			'Cache-Control': 'no-store',
			'Content-Length': Buffer.byteLength(body),
			Connection: 'close',
		},
		body,
	};
}

/** The same as a complete HTTP/1.1 response, for a socket that has no response object. */
function rawEnvelopeResponse(error: ApiError): string {
	const { headers, body } = envelopeResponse(error);
	const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
	return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines.join('')}\r\n${body}`;
}

function clientErrorOf(code: string | undefined): ApiError {
	switch (code) {
		case 'HPE_HEADER_OVERFLOW':
			return new ApiError(
				'headers_too_large',
				`The request headers exceed ${MAX_HEADER_BYTES / 1024} KB.`,
			);
		case 'ERR_HTTP_REQUEST_TIMEOUT':
			return new ApiError('request_timeout', 'The request was not received in time.');
		default:
			return new ApiError('validation_failed', 'The request is not valid HTTP.');
	}
}

/**
 * Answers what Node's parser refused. Like Node's own default, it writes only when no response of
 * the connection has started, so a reply is never spliced into another one.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
	const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
	if (!socket.writable || error.code === 'ECONNRESET' || response?.headersSent) {
		socket.destroy();
		return;
	}
	socket.end(rawEnvelopeResponse(clientErrorOf(error.code)));
}

function sendEnvelope(res: ServerResponse, error: ApiError): void {
	const { headers, body } = envelopeResponse(error);
	res.writeHead(error.status, headers).end(body);
}

function declaresTooLargeBody(req: IncomingMessage): boolean {
	const length = req.headers['content-length'];
	return length !== undefined && Number(length) > MAX_BODY_BYTES;
}

// RFC 3986 authority without userinfo: a bracketed IPv6 literal or a reg-name/IPv4, then an optional port.
const HOST_PATTERN = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9\-._~]+))(?::([0-9]{1,5}))?$/;

/** Why a Host header (or the authority of an absolute request target) is unusable, or null. */
function hostProblem(host: string): string | null {
	const match = HOST_PATTERN.exec(host);
	if (!match) return 'The Host header is not a valid host[:port].';
	if (match[1] !== undefined && !isIPv6(match[1]))
		return 'The Host header holds an invalid IPv6 address.';
	if (match[3] !== undefined && Number(match[3]) > 65535)
		return 'The Host header holds an invalid port.';
	return null;
}

/**
 * The first thing every request meets: `nosniff` on every answer, a Host that parses (it is never
 * used to build URLs, but a request must be well-formed), and a declared body size within the limit,
 * refused before a byte of the body is read.
 */
export function guardRequest(req: Request, res: Response, next: NextFunction): void {
	res.setHeader('X-Content-Type-Options', 'nosniff');
	const host = req.headers.host;
	const problem =
		host === undefined
			? req.httpVersionMajor === 1 && req.httpVersionMinor === 0
				? null
				: 'The Host header is required.'
			: hostProblem(host);
	if (problem)
		return next(new ApiError('validation_failed', problem, [{ path: 'Host', message: problem }]));
	const absoluteTarget = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(req.url);
	if (absoluteTarget && hostProblem(absoluteTarget[1])) {
		return next(new ApiError('validation_failed', 'The request target is not a valid URL.'));
	}
	if (declaresTooLargeBody(req)) {
		return next(bodyTooLarge());
	}
	next();
}
