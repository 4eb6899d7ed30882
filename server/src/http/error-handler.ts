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
		// A body left unread would otherwise be read and thrown away to keep the connection: close it instead.
		if (declaresBody(req) && !req.complete) res.setHeader('Connection', 'close');
		res.setHeader('Cache-Control', 'no-store');
		res.status(apiError.status).json(apiError.toEnvelope());
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
