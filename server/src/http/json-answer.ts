import type { Response } from 'express';

/**
 * Answers `status` with `body` as JSON, as Express's `res.json` does (its Content-Type and
 * Content-Length; a HEAD request gets the headers only), but hands Node the text itself. Express's
 * `send` first copies any text of 1,000 characters or more into a Buffer, memory outside V8's heap
 * that V8 answers with full collections: under a few thousand list pages a second, one every 0.2 s,
 * whose marking took half of a core, and for seconds at a time the server answered half as many
 * (docs/performance.md).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	res.statusCode = status;
	res.setHeader('Content-Type', 'application/json; charset=utf-8');
	res.setHeader('Content-Length', Buffer.byteLength(text));
	res.end(text);
}
