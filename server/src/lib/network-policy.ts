import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * An allow-list: a webhook may reach an address only if it is globally reachable unicast.
 * IPv4: any address outside every block of the IANA IPv4 Special-Purpose Address Registry
 * (RFC 6890 and its updates) and outside multicast. IPv6: inside 2000::/3, the global unicast
 * space, and outside every block of the IANA IPv6 Special-Purpose Address Registry that lies in it.
 * Everything else is refused, IPv4-mapped, -translated and -embedded IPv6 forms included, so
 * a new or unusual range is refused until it is known to be public.
 */
const IPV4_SPECIAL_PURPOSE: Array<[string, number]> = [
	['0.0.0.0', 8], // "this network"
	['10.0.0.0', 8], // private
	['100.64.0.0', 10], // shared address space (carrier-grade NAT)
	['127.0.0.0', 8], // loopback
	['169.254.0.0', 16], // link-local (cloud metadata lives here)
	['172.16.0.0', 12], // private
	['192.0.0.0', 24], // IETF protocol assignments (incl. DS-Lite, PCP and TURN anycast)
	['192.0.2.0', 24], // documentation (TEST-NET-1)
	['192.31.196.0', 24], // AS112-v4
	['192.52.193.0', 24], // AMT
	['192.88.99.0', 24], // deprecated 6to4 relay anycast
	['192.168.0.0', 16], // private
	['192.175.48.0', 24], // direct delegation AS112 service
	['198.18.0.0', 15], // benchmarking
	['198.51.100.0', 24], // documentation (TEST-NET-2)
	['203.0.113.0', 24], // documentation (TEST-NET-3)
	['224.0.0.0', 4], // multicast: not unicast
	['240.0.0.0', 4], // reserved, and the limited broadcast 255.255.255.255
];

const IPV6_GLOBAL_UNICAST: [string, number] = ['2000::', 3];

/** The special-purpose blocks inside 2000::/3 (those outside it are refused by the allow-list already). */
const IPV6_SPECIAL_PURPOSE: Array<[string, number]> = [
	['2001::', 23], // IETF protocol assignments: Teredo, PCP/TURN/DNS-SD anycast, benchmarking, AMT, AS112, ORCHID, drone ID
	['2001:db8::', 32], // documentation
	['2002::', 16], // 6to4
	['2620:4f:8000::', 48], // direct delegation AS112 service
	['3fff::', 20], // documentation (RFC 9637)
];

const ipv4Special = new BlockList();
for (const [network, prefix] of IPV4_SPECIAL_PURPOSE)
	ipv4Special.addSubnet(network, prefix, 'ipv4');
const ipv6GlobalUnicast = new BlockList();
ipv6GlobalUnicast.addSubnet(IPV6_GLOBAL_UNICAST[0], IPV6_GLOBAL_UNICAST[1], 'ipv6');
const ipv6Special = new BlockList();
for (const [network, prefix] of IPV6_SPECIAL_PURPOSE)
	ipv6Special.addSubnet(network, prefix, 'ipv6');

/** True only for a globally reachable unicast address (see above). */
export function isPublicAddress(address: string): boolean {
	switch (isIP(address)) {
		case 4:
			return !ipv4Special.check(address, 'ipv4');
		case 6:
			// A scoped address (fe80::1%eth0) is never global; BlockList would refuse to parse it.
			if (address.includes('%')) return false;
			return ipv6GlobalUnicast.check(address, 'ipv6') && !ipv6Special.check(address, 'ipv6');
		default:
			return false;
	}
}

/** Host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
	return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type LookupAll = (host: string) => Promise<string[]>;

const systemLookup: LookupAll = async (host) =>
	(await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export interface UrlPolicyOptions {
	/** How long the name may take to resolve. */
	dnsTimeoutMs: number;
	lookup?: LookupAll;
}

/**
 * Why a webhook URL may not be called, or null when it may: https only, and every address the
 * host resolves to (within the time allowed) must be public. Checked when an endpoint is created
 * and again at each delivery.
 */
export async function webhookUrlProblem(
	rawUrl: string,
	options: UrlPolicyOptions,
): Promise<string | null> {
	const url = new URL(rawUrl);
	if (url.protocol !== 'https:') return 'Webhook URLs must use https.';
	const host = urlHost(url);
	let addresses: string[];
	if (isIP(host)) {
		addresses = [host];
	} else {
		const resolved = await withTimeout(
			(options.lookup ?? systemLookup)(host),
			options.dnsTimeoutMs,
		);
		if (resolved === 'timeout')
			return `The host ${host} could not be resolved within ${options.dnsTimeoutMs} ms.`;
		if (resolved instanceof Error) return `The host ${host} could not be resolved.`;
		addresses = resolved;
	}
	if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
		return `The host ${host} resolves to a loopback, private or otherwise non-public address.`;
	}
	return null;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | Error | 'timeout'> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<'timeout'>((resolve) => {
		timer = setTimeout(() => resolve('timeout'), ms);
	});
	const settled = promise.then(
		(value) => value,
		(error: unknown) => (error instanceof Error ? error : new Error(String(error))),
	);
	return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}
