import { BlockList, isIP } from 'node:net';
import { ipv6Words } from './ipv6-words.js';

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
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
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
  if (family === 4) return BLOCKED_V4.check(bare, 'ipv4');
  // Forms that carry a routable IPv4 address are judged by it: IPv4-mapped, well-known NAT64
  // (an IPv6-only host reaching IPv4 partners) and 6to4.
  const embedded = embeddedIpv4(bare);
  if (embedded) return BLOCKED_V4.check(embedded, 'ipv4');
  return BLOCKED_V6.check(bare, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

/**
 * `public` for an address that is not blocked; else `loopback` (127/8, ::1), `link-local`
 * (169.254/16 with the cloud metadata address, fe80::/10) or `private` (every other blocked
 * range). IPv6 forms embedding an IPv4 address are judged by it. Non-IPs are `private`.
 */
export type AddressClass = 'public' | 'loopback' | 'link-local' | 'private';

export function classifyAddress(address: string): AddressClass {
  if (!isBlockedAddress(address)) return 'public';
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return 'private';
  const v4 = family === 4 ? bare : embeddedIpv4(bare);
  if (v4) return LOOPBACK.check(v4, 'ipv4') ? 'loopback' : LINK_LOCAL.check(v4, 'ipv4') ? 'link-local' : 'private';
  return LOOPBACK.check(bare, 'ipv6') ? 'loopback' : LINK_LOCAL.check(bare, 'ipv6') ? 'link-local' : 'private';
}

function embeddedIpv4(ipv6: string): string | undefined {
  const w = ipv6Words(ipv6);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && w[5] === 0xffff) return v4(w[6]!, w[7]!);
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return v4(w[6]!, w[7]!);
  if (w[0] === 0x2002) return v4(w[1]!, w[2]!);
  return undefined;
}
