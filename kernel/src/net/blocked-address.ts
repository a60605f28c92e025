import { BlockList, isIP } from 'node:net';

/**
 * Addresses the gateway never connects to on a partner's or client's behalf (SSRF into the operator's
 * network: webhook targets in production, OAuth client metadata documents):
 * unspecified, loopback, private, carrier-grade NAT, link-local (cloud metadata at
 * 169.254.169.254), benchmarking, documentation, multicast and reserved ranges; in IPv6 also every
 * IPv4-mapped and IPv4-compatible form (`::ffff:127.0.0.1` and `::ffff:7f00:1` alike), NAT64,
 * 6to4 and Teredo (which embed an IPv4 address), unique-local, site-local and link-local.
 */
// Two lists: Node checks an IPv4 address against IPv6 rules in its mapped form, so `::ffff:0:0/96`
// in one list would block every IPv4 address.
const BLOCKED_V4 = new BlockList();
const BLOCKED_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED_V6.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IP literal, brackets allowed) must not be fetched from. Non-IPs are blocked. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return true;
  return family === 4 ? BLOCKED_V4.check(bare, 'ipv4') : BLOCKED_V6.check(bare, 'ipv6');
}
