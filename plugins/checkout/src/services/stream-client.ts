import { isIP } from 'node:net';

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

/** The eight 16-bit words of a valid IPv6 literal (zone dropped, `::` and a dotted tail expanded). */
function ipv6Words(ipv6: string): number[] {
  const zone = ipv6.indexOf('%');
  let text = (zone === -1 ? ipv6 : ipv6.slice(0, zone)).toLowerCase();
  const lastGroup = text.lastIndexOf(':') + 1;
  const tail = text.slice(lastGroup);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastGroup)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  if (rest === undefined) return left;
  const right = parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
