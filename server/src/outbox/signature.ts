import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks headers: `webhook-signature` is `v1,` + base64 HMAC-SHA256 over
 * "{id}.{timestamp}.{body}", keyed with the base64-decoded part of the `whsec_` secret; one such
 * signature per secret, separated by spaces (the current one first, then one being replaced).
 */
export function signedHeaders(
	secrets: readonly string[],
	id: string,
	timestampSeconds: number,
	body: string,
): Record<string, string> {
	const signatures = secrets.map((secret) => {
		const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
		const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`);
		return `v1,${mac.digest('base64')}`;
	});
	return {
		'webhook-id': id,
		'webhook-timestamp': String(timestampSeconds),
		'webhook-signature': signatures.join(' '),
	};
}
