import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Every range that is not a routable public unicast address. IPv4 rules also match the
// IPv4-mapped IPv6 forms (::ffff:a.b.c.d); IPv6 transition ranges that embed an IPv4 address
// (NAT64, 6to4, Teredo) are refused as a whole rather than decoded.
const NON_PUBLIC_RANGES: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['::', 96, 'ipv6'], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96, 'ipv6'], // NAT64
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard-only
  ['2001::', 23, 'ipv6'], // IETF protocol assignments, Teredo
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const nonPublic = new BlockList();
for (const [network, prefix, family] of NON_PUBLIC_RANGES) nonPublic.addSubnet(network, prefix, family);

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Why a webhook URL may not be called, or null when it may: https only, and every address the
 * host resolves to must be public. Checked when an endpoint is created and again at each delivery.
 */
export async function webhookUrlProblem(rawUrl: string): Promise<string | null> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'https:') return 'Webhook URLs must use https.';
  const host = urlHost(url);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      return `The host ${host} could not be resolved.`;
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    return `The host ${host} resolves to a loopback, private or otherwise non-public address.`;
  }
  return null;
}
