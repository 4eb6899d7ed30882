import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks headers: `webhook-signature` is `v1,` + base64 HMAC-SHA256 over
 * "{id}.{timestamp}.{body}", keyed with the base64-decoded part of the `whsec_` secret.
 */
export function signedHeaders(
	secret: string,
	id: string,
	timestampSeconds: number,
	body: string,
): Record<string, string> {
	const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
	const signature = createHmac('sha256', key)
		.update(`${id}.${timestampSeconds}.${body}`)
		.digest('base64');
	return {
		'webhook-id': id,
		'webhook-timestamp': String(timestampSeconds),
		'webhook-signature': `v1,${signature}`,
	};
}
