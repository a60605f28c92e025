import { isJsonObject, decimalOfNumber, expectShape, ProviderError, toBaseUnits, type FeeEstimate, type ProviderHttp } from '@gw/chain-api';
import { resultOf, rpcBatch } from '../core-rpc.js';

/** A non-negative JSON number as its decimal, rounded up to a whole number (fee rates are never rounded down). */
function ceilOf(value: number): bigint {
  const [whole, fraction = ''] = decimalOfNumber(value).split('.');
  return BigInt(whole!) + (/[1-9]/.test(fraction) ? 1n : 0n);
}

/** A rate in coins per 1,000 vbytes (Core's BTC/kvB JSON number) as base units per vbyte, rounded up, exactly. */
export function perVbyteOfPerKvb(value: unknown, where: string): bigint {
  expectShape(typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 21_000_000, `${where}: bad fee rate`);
  let perKvb: bigint;
  try {
    perKvb = toBaseUnits(decimalOfNumber(value), 8);
  } catch {
    throw new ProviderError('malformed', '', `malformed provider response: ${where}: fee rate ${value} has more than 8 decimals`);
  }
  return (perKvb + 999n) / 1000n;
}

/**
 * Esplora's `GET /fee-estimates` (sat/vB by confirmation target, fractional): next block is target
 * "1", an hour is "6", the minimum is the lowest rate listed (at least 1), and neither target is
 * below the minimum (an estimate of 0 is floored to it). A server without
 * estimates (an empty object, as on regtest) is a provider error.
 */
export async function esploraFeeEstimate(http: ProviderHttp): Promise<FeeEstimate> {
  const body = await http.json('GET', '/fee-estimates');
  expectShape(isJsonObject(body), '/fee-estimates: not an object');
  const rates = Object.values(body);
  expectShape(
    rates.every((r) => typeof r === 'number' && Number.isFinite(r) && r >= 0 && r < 1e9),
    '/fee-estimates: not a map of rates',
  );
  const [next, hour] = [body['1'], body['6']];
  if (typeof next !== 'number' || typeof hour !== 'number') throw new ProviderError('http_error', '', '/fee-estimates: no estimate for 1 and 6 blocks');
  const lowest = (rates as number[]).reduce((min, r) => (r < min ? r : min), hour);
  const minimum = ceilOf(lowest) < 1n ? 1n : ceilOf(lowest);
  // A quiet mempool can make electrs answer 0 for a target: never below the minimum relayed.
  const atLeast = (rate: bigint) => (rate < minimum ? minimum : rate);
  return { nextBlock: atLeast(ceilOf(next)), hour: atLeast(ceilOf(hour)), minimum };
}

/**
 * A node's `estimatesmartfee 1` and `6` (Core answers `feerate` in BTC/kvB, or `errors` when it has
 * too little data, as on regtest; bcoin answers `fee`, -1 for none) and `getmempoolinfo`'s
 * `mempoolminfee` (with Core's `minrelaytxfee`, the higher) as the minimum. No estimate is a
 * provider error: the treasury plugin falls back to its configured rates.
 */
export async function coreFeeEstimate(http: ProviderHttp): Promise<FeeEstimate> {
  const [next, hour, mempool] = await rpcBatch(http, [
    ['estimatesmartfee', [1]],
    ['estimatesmartfee', [6]],
    ['getmempoolinfo', []],
  ]);
  const estimate = (reply: typeof next, target: number): bigint => {
    const result = resultOf(reply!, 'estimatesmartfee');
    expectShape(isJsonObject(result), `estimatesmartfee ${target}: not an object`);
    const rate = result['feerate'] ?? result['fee'];
    if (typeof rate !== 'number' || rate <= 0) {
      const errors = Array.isArray(result['errors']) ? result['errors'].join('; ') : 'no fee rate';
      throw new ProviderError('http_error', '', `estimatesmartfee ${target}: ${errors}`);
    }
    return perVbyteOfPerKvb(rate, `estimatesmartfee ${target}`);
  };
  const info = resultOf(mempool!, 'getmempoolinfo');
  expectShape(isJsonObject(info), 'getmempoolinfo: not an object');
  const floors = [info['mempoolminfee'], info['minrelaytxfee']].filter((v) => v !== undefined).map((v) => perVbyteOfPerKvb(v, 'getmempoolinfo'));
  const minimum = floors.reduce((max, v) => (v > max ? v : max), 1n);
  return { nextBlock: estimate(next, 1), hour: estimate(hour, 6), minimum };
}
