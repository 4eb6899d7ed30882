import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createOrg, type TestOrg } from '../support/fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Receiver, type ReceivedDelivery } from '../support/receiver.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// A signing secret replaced without a gap: the new one shown once, both signatures on every
// delivery until the old one expires, then only the new one.
const HOUR = 60 * 60 * 1000;
let server: TestServer;
let receiver: Receiver;
let clock: ManualClock;
beforeAll(async () => {
	receiver = await Receiver.start();
	// Starts at the real time, so that the standardwebhooks library takes the timestamps as fresh.
	clock = new ManualClock(Date.now());
	server = await startTestServer({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, { clock });
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

let org: TestOrg;
let path: string;
let base: string;
let firstSecret: string;
beforeEach(async () => {
	org = await createOrg(server);
	path = `/rotation-${org.slug}`;
	const created = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}${path}`,
		event_types: ['lab.created'],
	});
	base = `/orgs/${org.id}/webhooks/${created.body.id}`;
	firstSecret = created.body.secret;
});

/** Creates a lab and returns its delivery, as the receiver got it. */
async function deliveryOfALab(): Promise<ReceivedDelivery> {
	const before = receiver.at(path).length;
	await org.admin.post('/labs', { name: `Lab ${before}`, tier: 'vm' });
	await receiver.waitFor(() => receiver.at(path).length > before);
	return receiver.at(path)[before];
}

const signaturesOf = (delivery: ReceivedDelivery) =>
	String(delivery.headers['webhook-signature']).split(' ');

/** Whether one of the delivery's signatures is made with `secret` (checked by hand, at any time). */
function signedWith(delivery: ReceivedDelivery, secret: string): boolean {
	const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
	const { 'webhook-id': id, 'webhook-timestamp': timestamp } = delivery.headers;
	const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${delivery.body}`);
	return signaturesOf(delivery).includes(`v1,${mac.digest('base64')}`);
}

describe('POST …/webhooks/{webhookId}/rotate-secret', () => {
	it('returns a new secret once; until the old one expires, 24 hours later, each verifies every delivery', async () => {
		const once = { headers: { 'Idempotency-Key': `rotate-${org.slug}` } };
		const rotated = await org.admin.post(`${base}/rotate-secret`, undefined, once);
		expect(rotated.status).toBe(200);
		const { secret, previous_secret_expires_at } = rotated.body;
		expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
		expect(secret).not.toBe(firstSecret);
		expect(Date.parse(previous_secret_expires_at)).toBe(clock.now() + 24 * HOUR);
		// Shown once: neither the endpoint nor a replay of the same request shows it again.
		const endpoint = (await org.admin.get(base)).body;
		expect(endpoint).toMatchObject({ previous_secret_expires_at });
		expect(JSON.stringify(endpoint)).not.toContain('whsec_');
		const replayed = await org.admin.post(`${base}/rotate-secret`, undefined, once);
		expect(replayed.headers.get('idempotent-replayed')).toBe('true');
		expect(replayed.body).not.toHaveProperty('secret');

		const during = await deliveryOfALab();
		expect(signaturesOf(during)).toHaveLength(2);
		const headers = during.headers as Record<string, string>;
		expect(new Webhook(secret).verify(during.body, headers)).toMatchObject({ type: 'lab.created' });
		expect(new Webhook(firstSecret).verify(during.body, headers)).toMatchObject({
			type: 'lab.created',
		});

		clock.advance(24 * HOUR);
		const after = await deliveryOfALab();
		expect(signaturesOf(after)).toHaveLength(1);
		expect(signedWith(after, secret)).toBe(true);
		expect(signedWith(after, firstSecret)).toBe(false);
		expect((await org.admin.get(base)).body.previous_secret_expires_at).toBeNull();
	});

	it('ends the old secret at once for a time not in the future (a secret that leaked)', async () => {
		const rotated = await org.admin.post(`${base}/rotate-secret`, {
			old_secret_expires_at: new Date(clock.now()).toISOString(),
		});
		expect(rotated.body.previous_secret_expires_at).toBeNull();
		const delivery = await deliveryOfALab();
		expect(signaturesOf(delivery)).toHaveLength(1);
		expect(signedWith(delivery, rotated.body.secret)).toBe(true);
		expect(signedWith(delivery, firstSecret)).toBe(false);
	});

	it('keeps the old secret until the time given, and a second rotation ends the older one at once', async () => {
		const inAnHour = new Date(clock.now() + HOUR).toISOString();
		const second = await org.admin.post(`${base}/rotate-secret`, {
			old_secret_expires_at: inAnHour,
		});
		expect(second.body.previous_secret_expires_at).toBe(inAnHour);
		const third = await org.admin.post(`${base}/rotate-secret`, {});
		const delivery = await deliveryOfALab();
		expect(signaturesOf(delivery)).toHaveLength(2);
		expect(signedWith(delivery, third.body.secret)).toBe(true);
		expect(signedWith(delivery, second.body.secret)).toBe(true);
		expect(signedWith(delivery, firstSecret)).toBe(false);
	});

	it('refuses an old secret kept more than 7 days, or a time that is not one, changing nothing', async () => {
		for (const old_secret_expires_at of [
			new Date(clock.now() + 7 * 24 * HOUR + 1000).toISOString(),
			'tomorrow',
		]) {
			const refused = await org.admin.post(`${base}/rotate-secret`, { old_secret_expires_at });
			expect(refused.status).toBe(400);
			expect(refused.body.error.message).toMatch(/old_secret_expires_at/);
		}
		const delivery = await deliveryOfALab();
		expect(signaturesOf(delivery)).toHaveLength(1);
		expect(signedWith(delivery, firstSecret)).toBe(true);
	});
});
