/** The eight 16-bit words of a valid IPv6 literal (zone dropped, `::` and a dotted IPv4 tail expanded). */
export function ipv6Words(ipv6: string): number[] {
  const zone = ipv6.indexOf('%');
  let text = zone === -1 ? ipv6 : ipv6.slice(0, zone);
  const lastGroup = text.lastIndexOf(':') + 1;
  const dotted = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text.slice(lastGroup));
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastGroup)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
