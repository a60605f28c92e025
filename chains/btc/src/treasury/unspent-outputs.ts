import * as bitcoin from 'bitcoinjs-lib';
import { isJsonObject, isCount, expectShape, type ProviderHttp, type ProviderOutput } from '@gw/chain-api';
import { RpcCallError, rpcCall, satoshisOf } from '../core-rpc.js';

const HASH = /^[0-9a-f]{64}$/;
/** More outputs than any answer about the gateway's addresses holds: a bound on what a provider can make the gateway hold in memory. */
export const MAX_PROVIDER_OUTPUTS = 100_000;
/**
 * `scantxoutset` reads the whole UTXO set: about a minute on mainnet on a fast disk, several on a
 * slow one. The request waits this long instead of the pool's per-request timeout.
 */
export const SCAN_TIMEOUT_MS = 10 * 60_000;
/** JSON-RPC "Method not found": bcoin has no `scantxoutset`. */
const RPC_METHOD_NOT_FOUND = -32601;

/** Adds `outpoint` to `seen`; false when it was there already. */
function once(seen: Set<string>, outpoint: string): boolean {
  if (seen.has(outpoint)) return false;
  seen.add(outpoint);
  return true;
}

/** Esplora's `GET /address/:address/utxo`: confirmed and mempool outputs of one address. */
export async function esploraUnspent(http: ProviderHttp, address: string): Promise<ProviderOutput[]> {
  const path = `/address/${encodeURIComponent(address)}/utxo`;
  const body = await http.json('GET', path);
  expectShape(Array.isArray(body) && body.length <= MAX_PROVIDER_OUTPUTS, `${path}: not an array of at most ${MAX_PROVIDER_OUTPUTS} outputs`);
  const seen = new Set<string>();
  return body.map((utxo) => {
    expectShape(isJsonObject(utxo), `${path}: not an object`);
    const { txid, vout, value, status } = utxo;
    expectShape(typeof txid === 'string' && HASH.test(txid) && isCount(vout) && isCount(value), `${path}: bad output`);
    expectShape(isJsonObject(status) && typeof status['confirmed'] === 'boolean', `${path}: bad status`);
    const height = status['confirmed'] ? status['block_height'] : null;
    expectShape(height === null || isCount(height), `${path}: bad block height`);
    expectShape(once(seen, `${txid}:${vout}`), `${path}: the output ${txid}:${vout} twice`);
    return { txHash: txid, outputIndex: vout, amountUnits: BigInt(value), blockHeight: height };
  });
}

/**
 * A node's unspent outputs at `addresses`, by address. Bitcoin Core: one `scantxoutset start` over
 * `addr(…)` descriptors (a pass over the whole UTXO set, about a minute on mainnet, whatever the
 * number of addresses; confirmed outputs only: Core's UTXO set has no mempool), with its own
 * timeout ({@link SCAN_TIMEOUT_MS}: the pool's per-request one is meant for quick calls). Core runs
 * one scan at a time per node; a second caller gets an RPC error, a provider failure retried
 * later. An output listed twice, or one to an address not asked for, is a malformed answer. bcoin, which has
 * no `scantxoutset`: its REST `GET /coin/address/:address` per address (the node needs
 * `index-address`; mempool outputs included, height -1).
 */
export async function coreUnspent(http: ProviderHttp, addresses: readonly string[], network: bitcoin.Network): Promise<Map<string, ProviderOutput[]>> {
  let result: unknown;
  try {
    result = await rpcCall(http, 'scantxoutset', ['start', addresses.map((a) => `addr(${a})`)], SCAN_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof RpcCallError && error.code === RPC_METHOD_NOT_FOUND) return bcoinUnspent(http, addresses);
    throw error;
  }
  expectShape(isJsonObject(result) && result['success'] !== false && Array.isArray(result['unspents']), 'scantxoutset: the scan did not complete');
  expectShape((result['unspents'] as unknown[]).length <= MAX_PROVIDER_OUTPUTS, `scantxoutset: more than ${MAX_PROVIDER_OUTPUTS} outputs`);
  const wanted = new Set(addresses);
  const seen = new Set<string>();
  const found = new Map<string, ProviderOutput[]>();
  for (const utxo of result['unspents'] as unknown[]) {
    expectShape(isJsonObject(utxo), 'scantxoutset: unspent not an object');
    const { txid, vout, scriptPubKey, amount, height } = utxo;
    expectShape(typeof txid === 'string' && HASH.test(txid) && isCount(vout) && isCount(height), 'scantxoutset: bad unspent');
    expectShape(typeof scriptPubKey === 'string' && /^(?:[0-9a-f]{2})+$/.test(scriptPubKey), 'scantxoutset: bad scriptPubKey');
    let address: string;
    try {
      address = bitcoin.address.fromOutputScript(Buffer.from(scriptPubKey, 'hex'), network);
    } catch {
      address = '';
    }
    expectShape(wanted.has(address), `scantxoutset: an output to ${address || scriptPubKey} was not asked for`);
    expectShape(once(seen, `${txid}:${vout}`), `scantxoutset: the output ${txid}:${vout} twice`);
    const list = found.get(address) ?? [];
    list.push({ txHash: txid, outputIndex: vout, amountUnits: BigInt(satoshisOf(amount, `scantxoutset ${txid}:${vout}`)), blockHeight: height });
    found.set(address, list);
  }
  return found;
}

async function bcoinUnspent(http: ProviderHttp, addresses: readonly string[]): Promise<Map<string, ProviderOutput[]>> {
  const found = new Map<string, ProviderOutput[]>();
  for (const address of addresses) {
    const path = `/coin/address/${encodeURIComponent(address)}`;
    const body = await http.json('GET', path);
    expectShape(Array.isArray(body) && body.length <= MAX_PROVIDER_OUTPUTS, `${path}: not an array of at most ${MAX_PROVIDER_OUTPUTS} coins`);
    const seen = new Set<string>();
    const outputs = body.map((coin) => {
      expectShape(isJsonObject(coin), `${path}: coin not an object`);
      const { hash, index, value, height, address: given } = coin;
      expectShape(typeof hash === 'string' && HASH.test(hash) && isCount(index) && isCount(value), `${path}: bad coin`);
      expectShape(given === address, `${path}: a coin of ${String(given)}`);
      expectShape(typeof height === 'number' && Number.isSafeInteger(height) && height >= -1, `${path}: bad height`);
      expectShape(once(seen, `${hash}:${index}`), `${path}: the coin ${hash}:${index} twice`);
      return { txHash: hash, outputIndex: index, amountUnits: BigInt(value), blockHeight: height < 0 ? null : height };
    });
    if (outputs.length > 0) found.set(address, outputs);
  }
  return found;
}
