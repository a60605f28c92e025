import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isBlockedAddress } from '@gw/kernel';

/**
 * Whether `address` (an IP literal, brackets allowed) is in a range webhooks must not reach in
 * production: the kernel's blocked ranges (private, loopback, link-local, CGNAT, unspecified,
 * multicast, reserved, and every IPv6 form embedding an IPv4 address). Host names are not IP
 * literals and pass here; their resolved addresses are checked by `publicOnlyLookup`.
 */
export function isPrivateAddress(address: string): boolean {
  return isIP(address.replace(/^\[|\]$/g, '')) !== 0 && isBlockedAddress(address);
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
