import { isPublicAddress, webhookUrlProblem } from '../../server/src/lib/network-policy.ts';

// One table: the webhook address policy is an allow-list of globally reachable unicast addresses.
const CASES: Array<[address: string, allowed: boolean, why: string]> = [
	// Allowed: public unicast, including addresses right next to special-purpose blocks.
	['93.184.215.14', true, 'public IPv4'],
	['8.8.8.8', true, 'public IPv4'],
	['1.1.1.1', true, 'public IPv4'],
	['9.255.255.255', true, 'just below 10.0.0.0/8'],
	['11.0.0.0', true, 'just above 10.0.0.0/8'],
	['100.128.0.0', true, 'just above 100.64.0.0/10'],
	['172.32.0.1', true, 'just above 172.16.0.0/12'],
	['192.0.3.1', true, 'just above 192.0.2.0/24'],
	['223.255.255.254', true, 'just below multicast'],
	['2606:4700:4700::1111', true, 'public IPv6'],
	['2a00:1450:4001:80b::200e', true, 'public IPv6'],
	['2001:200::1', true, 'just above 2001::/23'],
	['2003::1', true, 'just above 2002::/16'],
	['3ffe::1', true, 'just below 3fff::/20'],
	['3fff:1000::1', true, 'just above 3fff::/20'],
	// Refused: the holes of the old block-list (issue 11, item 4).
	['3fff::1', false, 'documentation (RFC 9637)'],
	['5f00::1', false, 'SRv6 SIDs, outside 2000::/3'],
	['100:0:0:1::1', false, 'dummy IPv6 prefix, outside 2000::/3'],
	['4000::1', false, 'unassigned, outside 2000::/3'],
	['1::1', false, 'unassigned, outside 2000::/3'],
	['::ffff:0:7f00:1', false, 'IPv4-translated 127.0.0.1'],
	['::2:0:0:1', false, 'unassigned, outside 2000::/3'],
	// Refused: special-purpose IPv4.
	['127.0.0.1', false, 'loopback'],
	['127.255.255.254', false, 'loopback'],
	['0.0.0.0', false, 'this network'],
	['10.0.0.1', false, 'private'],
	['172.16.0.1', false, 'private'],
	['172.31.255.255', false, 'private'],
	['192.168.0.1', false, 'private'],
	['100.64.0.1', false, 'shared address space'],
	['169.254.169.254', false, 'link-local (cloud metadata)'],
	['192.0.0.9', false, 'PCP anycast (IETF protocol assignments)'],
	['192.0.2.1', false, 'documentation'],
	['192.31.196.1', false, 'AS112-v4'],
	['192.52.193.1', false, 'AMT'],
	['192.88.99.1', false, '6to4 relay anycast'],
	['192.175.48.1', false, 'direct delegation AS112'],
	['198.18.0.1', false, 'benchmarking'],
	['198.51.100.1', false, 'documentation'],
	['203.0.113.1', false, 'documentation'],
	['224.0.0.251', false, 'multicast'],
	['239.255.255.250', false, 'multicast'],
	['240.0.0.1', false, 'reserved'],
	['255.255.255.255', false, 'limited broadcast'],
	// Refused: special-purpose and non-global IPv6.
	['::1', false, 'loopback'],
	['::', false, 'unspecified'],
	['fe80::1', false, 'link-local'],
	['fe80::1%eth0', false, 'scoped link-local'],
	['fc00::1', false, 'unique-local'],
	['fd12:3456:789a::1', false, 'unique-local'],
	['ff02::1', false, 'multicast'],
	['::ffff:127.0.0.1', false, 'IPv4-mapped loopback'],
	['::ffff:7f00:1', false, 'IPv4-mapped loopback, hex form'],
	['::ffff:10.0.0.1', false, 'IPv4-mapped private'],
	['::ffff:8.8.8.8', false, 'IPv4-mapped (a public IPv4 host publishes an A record, not this)'],
	['::127.0.0.1', false, 'IPv4-compatible'],
	['64:ff9b::a00:1', false, 'NAT64'],
	['64:ff9b:1::1', false, 'local-use NAT64'],
	['100::1', false, 'discard-only'],
	['2001::1', false, 'Teredo'],
	['2001:1::1', false, 'PCP anycast'],
	['2001:2::1', false, 'benchmarking'],
	['2001:3::1', false, 'AMT'],
	['2001:4:112::1', false, 'AS112-v6'],
	['2001:20::1', false, 'ORCHIDv2'],
	['2001:db8::1', false, 'documentation'],
	['2002:7f00:1::', false, '6to4'],
	['2620:4f:8000::1', false, 'direct delegation AS112'],
	['not an address', false, 'not an IP'],
];

describe('the webhook address allow-list', () => {
	it.each(CASES)('%s → allowed: %s (%s)', (address, allowed) => {
		expect(isPublicAddress(address)).toBe(allowed);
	});

	it.each(CASES.filter(([address]) => !address.includes('%') && address !== 'not an address'))(
		'applies the same answer to the URL https://%s/ at creation',
		async (address, allowed) => {
			const host = address.includes(':') ? `[${address}]` : address;
			const problem = await webhookUrlProblem(`https://${host}/hook`, { dnsTimeoutMs: 1000 });
			if (allowed) expect(problem).toBeNull();
			else expect(problem).toMatch(/non-public address/);
		},
	);
});

describe('resolving a webhook host', () => {
	it('gives up after the DNS timeout with a clear reason when the resolver never answers', async () => {
		const never = () => new Promise<string[]>(() => undefined);
		await expect(
			webhookUrlProblem('https://hooks.example.com/x', { dnsTimeoutMs: 50, lookup: never }),
		).resolves.toBe('The host hooks.example.com could not be resolved within 50 ms.');
	});

	it('refuses a name when any of its addresses is not public', async () => {
		const mixed = async () => ['93.184.215.14', '10.0.0.1'];
		await expect(
			webhookUrlProblem('https://hooks.example.com/x', { dnsTimeoutMs: 1000, lookup: mixed }),
		).resolves.toMatch(/non-public/);
	});

	it('accepts a name whose addresses are all public, and says when it does not resolve', async () => {
		await expect(
			webhookUrlProblem('https://hooks.example.com/x', {
				dnsTimeoutMs: 1000,
				lookup: async () => ['93.184.215.14', '2606:4700::1'],
			}),
		).resolves.toBeNull();
		const failing = async () => {
			throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
		};
		await expect(
			webhookUrlProblem('https://nowhere.example/x', { dnsTimeoutMs: 1000, lookup: failing }),
		).resolves.toBe('The host nowhere.example could not be resolved.');
	});
});
