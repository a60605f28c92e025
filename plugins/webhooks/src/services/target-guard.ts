import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a production gateway never sends webhooks to: private, loopback, link-local,
 * carrier-grade NAT, unspecified, multicast and reserved ranges (SSRF into the operator's own
 * network). IPv4-mapped IPv6 addresses are checked as their IPv4 address.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IP literal) is in a range webhooks must not reach in production. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  const family = isIP(bare);
  if (family === 0) return false;
  return BLOCKED.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** The error a refused target raises; its message lands in the attempt's `error`. */
export class PrivateTargetError extends Error {
  constructor(readonly address: string) {
    super(`target resolves to a private, loopback or link-local address (${address}); refused in production`);
    this.name = 'PrivateTargetError';
  }
}

/**
 * A `lookup` for sockets that fails when any resolved address is private. Checking the addresses
 * the socket actually connects to (not a separate resolution before it) leaves no window for DNS
 * rebinding.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as unknown as LookupAddress[];
    const refused = list.find((entry) => isPrivateAddress(entry.address));
    if (refused) return callback(new PrivateTargetError(refused.address), '', 4);
    if ((options as { all?: boolean }).all) return (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, list);
    const first = list[0]!;
    return callback(null, first.address, first.family);
  });
};
