import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, isBlockedAddress, type ProjectKind } from '@gw/kernel';

/**
 * Whether `address` (an IP literal, brackets allowed) is in a range webhooks must not reach by
 * default: the kernel's blocked ranges (private, loopback, link-local, CGNAT, unspecified,
 * multicast, reserved, and every IPv6 form embedding an IPv4 address). Host names are not IP
 * literals and pass here; their resolved addresses are checked by `guardedLookup`.
 */
export function isPrivateAddress(address: string): boolean {
  return isIP(address.replace(/^\[|\]$/g, '')) !== 0 && isBlockedAddress(address);
}

/**
 * Why an event of a project of `kind` may not be sent to `address`, or undefined when it may
 * (issue 26 finding 4, issue 33 finding 13):
 * - a public address: always allowed;
 * - link-local (cloud metadata at 169.254.169.254, fe80::/10) for a sandbox project: never;
 * - any other non-public address, loopback included and for every kind, only when the operator
 *   allowed private targets (`plugins.webhooks.allowPrivateTargets`, default true only with
 *   GW_ENV=development): a sandbox partner on a shared host must not reach its local services.
 * The reason names no address: a partner learns that the target is not public, not where its
 * name points inside the operator's network.
 */
export function targetRefusal(address: string, kind: ProjectKind, allowPrivateTargets: boolean): string | undefined {
  if (!isPrivateAddress(address)) return undefined;
  if (kind === 'sandbox' && classifyAddress(address) === 'link-local') return 'target resolves to a link-local address; never a target of a sandbox project';
  if (allowPrivateTargets) return undefined;
  return 'target resolves to a private, loopback or link-local address; refused unless plugins.webhooks.allowPrivateTargets';
}

/** The error a refused target raises; its message lands in the attempt's `error`. */
export class PrivateTargetError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PrivateTargetError';
  }
}

/**
 * A `lookup` for sockets that fails when any resolved address is refused for `kind`. Checking the
 * addresses the socket actually connects to (not a separate resolution before it) leaves no window
 * for DNS rebinding.
 */
export function guardedLookup(kind: ProjectKind, allowPrivateTargets: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as unknown as LookupAddress[];
      for (const entry of list) {
        const refusal = targetRefusal(entry.address, kind, allowPrivateTargets);
        if (refusal) return callback(new PrivateTargetError(refusal), '', 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
