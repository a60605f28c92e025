import { isIP } from 'node:net';
import { ipv6Words } from '@gw/kernel';

/**
 * Who a status stream is counted against (issue 33 finding 19): an IPv4 client by its address,
 * an IPv6 client by its /64 prefix (one subscriber's link or host gets a whole /64, so counting
 * /128s let one client open the limit from each of 2^64 addresses), an IPv4-mapped IPv6 address
 * (`::ffff:203.0.113.9`, a dual-stack socket) as the IPv4 address it is. Anything else (no address
 * known) is counted as it is.
 */
export function streamClientKey(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return address;
  const words = ipv6Words(bare);
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) {
    return `${words[6]! >> 8}.${words[6]! & 0xff}.${words[7]! >> 8}.${words[7]! & 0xff}`;
  }
  return `${words
    .slice(0, 4)
    .map((w) => w.toString(16))
    .join(':')}::/64`;
}
