import { fixedFromBaseUnits, scaledDecimal } from '@gw/kernel';

/** Two plain decimals as integers over one power of ten. */
function aligned(a: string, b: string): [bigint, bigint] {
  const x = scaledDecimal(a);
  const y = scaledDecimal(b);
  const scale = Math.max(x.scale, y.scale);
  return [x.digits * 10n ** BigInt(scale - x.scale), y.digits * 10n ** BigInt(scale - y.scale)];
}

/**
 * Whether the rate `to` differs from the rate `from` by more than `share` of `from`:
 * `|to − from| > share × from`, exactly (bigint arithmetic on the decimal strings). `from` `"100"`,
 * share `"0.1"`: `"110"` and `"90"` are within, `"110.01"` and `"89.99"` beyond.
 */
export function movedBeyond(from: string, to: string, share: string): boolean {
  const [a, b] = aligned(from, to);
  const s = scaledDecimal(share);
  const difference = a > b ? a - b : b - a;
  return difference * 10n ** BigInt(s.scale) > s.digits * a;
}

/**
 * The change from `from` to `to` in percent of `from`, signed, with two decimals rounded half away
 * from zero: `("100", "123.456")` is `"+23.46"`, `("100", "90")` is `"-10.00"`. For operators.
 */
export function changePercent(from: string, to: string): string {
  const [a, b] = aligned(from, to);
  const difference = b - a;
  const magnitude = difference < 0n ? -difference : difference;
  // Hundredths of a percent: |to − from| / from × 10000, rounded half up.
  const hundredths = (2n * magnitude * 10_000n + a) / (2n * a);
  return `${difference < 0n ? '-' : '+'}${fixedFromBaseUnits(hundredths, 2)}`;
}
