import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { declaresBody } from './json-body.ts';

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
	next(new ApiError('not_found', `No such endpoint: ${req.method} ${req.path}`));
}

/** Every failure leaves as the error envelope; only ApiErrors speak to the client, the rest is `internal`. */
export function errorHandler(logger: Logger) {
	return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
		const apiError = error instanceof ApiError ? error : fromExpressError(error);
		if (apiError.status >= 500) logger.error(`${req.method} ${req.path} failed`, error);
		if (res.headersSent) {
			res.destroy();
			return;
		}
		if (apiError.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer');
		// A body left unread would otherwise be read and thrown away to keep the connection: close it
		// instead, once the client has had the answer (see lingerBeforeClosing).
		if (declaresBody(req) && !req.complete) {
			res.setHeader('Connection', 'close');
			lingerBeforeClosing(req);
		}
		res.setHeader('Cache-Control', 'no-store');
		res.status(apiError.status).json(apiError.toEnvelope());
	};
}

/** How long, and for how many bytes, a connection is drained before it is closed (nginx: 30 s / 5 s). */
const LINGER = { totalMs: 30_000, idleMs: 5_000, maxBytes: 64 * 1024 * 1024 };

/**
 * Closing a connection while the client is still sending its body makes the kernel answer the
 * unread bytes with a reset, and the client may lose the answer sent just before. So, as nginx
 * and Apache do, the answer is sent and the sending side closed (FIN) at once, then what the
 * client still sends is read and thrown away until its body is complete — within LINGER's bounds
 * of time, idle time and bytes — and only then is the connection closed.
 */
function lingerBeforeClosing(req: Request): void {
	const socket = req.socket;
	socket.destroySoon = () => {
		socket.end();
		let read = 0;
		let idle: NodeJS.Timeout;
		const close = () => {
			clearTimeout(total);
			clearTimeout(idle);
			socket.destroy();
		};
		const total = setTimeout(close, LINGER.totalMs);
		const stillSending = () => {
			clearTimeout(idle);
			idle = setTimeout(close, LINGER.idleMs);
		};
		stillSending();
		socket.on('data', (chunk: Buffer) => {
			read += chunk.length;
			if (read > LINGER.maxBytes) close();
			else stillSending();
		});
		if (req.complete) close();
		else req.once('end', close);
		socket.once('close', close);
	};
}

function fromExpressError(error: unknown): ApiError {
	// Express and its parsers mark client errors with a 4xx status; a malformed URL encoding is one.
	const status = (error as { status?: number }).status;
	if (status === 400)
		return new ApiError('validation_failed', 'The request could not be understood.');
	if (status === 413) return new ApiError('payload_too_large', 'The request is too large.');
	return new ApiError('internal', 'An internal error occurred.');
}
