import type { IncomingMessage } from 'node:http';
import express, { type Request, type Response } from 'express';
import { ApiError } from '../core/errors.ts';

export const MAX_BODY_BYTES = 100 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json'];

// RFC 8259 §8.1: JSON exchanged between systems is UTF-8. Other charsets would change what the bytes mean.
const parseJson = express.json({ limit: MAX_BODY_BYTES, type: JSON_TYPES });

export function declaresBody(req: IncomingMessage): boolean {
	const length = req.headers['content-length'];
	return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The `charset` parameter of the Content-Type, lower-cased, or undefined when none is given. */
function charsetOf(req: Request): string | undefined {
	const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(
		req.headers['content-type'] ?? '',
	);
	return match ? (match[1] ?? match[2]).toLowerCase() : undefined;
}

/** Reads the JSON body of a request (undefined when there is none), mapping every failure to the envelope. */
export async function readJsonBody(req: Request, res: Response): Promise<unknown> {
	if (!declaresBody(req)) return undefined;
	if (!req.is(JSON_TYPES)) {
		throw new ApiError(
			'malformed_json',
			'The request body must be JSON, sent with Content-Type: application/json.',
		);
	}
	const charset = charsetOf(req);
	if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
		throw new ApiError(
			'unsupported_media_type',
			`The request body must be UTF-8 encoded JSON, not ${charset.slice(0, 40)}.`,
		);
	}
	await new Promise<void>((resolve, reject) => {
		parseJson(req, res, (error?: unknown) => (error ? reject(toApiError(error)) : resolve()));
	});
	return req.body;
}

export function bodyTooLarge(): ApiError {
	return new ApiError('payload_too_large', `The request body exceeds ${MAX_BODY_BYTES / 1024} KB.`);
}

/** For endpoints that take no body: a body is refused before any of it is read. */
export function refuseBody(req: Request): undefined {
	if (declaresBody(req))
		throw new ApiError('validation_failed', 'This endpoint takes no request body.');
	return undefined;
}

function toApiError(error: unknown): ApiError {
	const type = (error as { type?: string }).type;
	switch (type) {
		case 'entity.too.large':
			return bodyTooLarge();
		case 'entity.parse.failed':
			return new ApiError('malformed_json', 'The request body is not valid JSON.');
		case 'encoding.unsupported':
		case 'charset.unsupported':
			return new ApiError('unsupported_media_type', 'The request body must be UTF-8 encoded JSON.');
		default:
			return new ApiError('malformed_json', 'The request body could not be read.');
	}
}
