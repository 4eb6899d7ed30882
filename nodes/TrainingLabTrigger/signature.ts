import { createHmac, timingSafeEqual } from 'node:crypto';

/** Deliveries signed more than this far from now are refused, so a captured delivery cannot be replayed later. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

type Headers = Record<string, string | string[] | undefined>;

/**
 * Checks a Standard Webhooks signature: `webhook-signature` holds space-separated `v1,<base64>`
 * entries (several during a secret rotation); one must equal HMAC-SHA256 over
 * "{webhook-id}.{webhook-timestamp}.{raw body}" with the base64-decoded part of one of `secrets`.
 * Returns why the delivery is refused, or null when it is authentic.
 */
export function signatureProblem(
	secrets: readonly string[],
	headers: Headers,
	rawBody: Buffer | string,
	nowSeconds: number,
): string | null {
	const id = single(headers['webhook-id']);
	const timestamp = single(headers['webhook-timestamp']);
	const signatures = single(headers['webhook-signature']);
	if (!id || !timestamp || !signatures)
		return 'missing webhook-id, webhook-timestamp or webhook-signature header';
	if (!/^\d{1,12}$/.test(timestamp)) return 'malformed webhook-timestamp';
	if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS)
		return 'webhook-timestamp is more than 5 minutes off';

	const candidates = signatures
		.split(' ')
		.filter((entry) => entry.startsWith('v1,'))
		.map((entry) => Buffer.from(entry.slice(3), 'base64'));
	const matches = secrets.some((secret) => {
		const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
		const expected = createHmac('sha256', key)
			.update(`${id}.${timestamp}.`)
			.update(rawBody)
			.digest();
		return candidates.some(
			(candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
		);
	});
	return matches ? null : 'signature does not match';
}

function single(value: string | string[] | undefined): string | undefined {
	return typeof value === 'string' && value.length > 0 ? value : undefined;
}
