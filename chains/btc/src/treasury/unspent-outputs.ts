import * as bitcoin from 'bitcoinjs-lib';
import { expectShape, type ProviderHttp, type ProviderOutput } from '@gw/chain-api';
import { RpcCallError, rpcCall, satoshisOf } from '../core-rpc.js';

const HASH = /^[0-9a-f]{64}$/;
/** JSON-RPC "Method not found": bcoin has no `scantxoutset`. */
const RPC_METHOD_NOT_FOUND = -32601;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Esplora's `GET /address/:address/utxo`: confirmed and mempool outputs of one address. */
export async function esploraUnspent(http: ProviderHttp, address: string): Promise<ProviderOutput[]> {
  const path = `/address/${encodeURIComponent(address)}/utxo`;
  const body = await http.json('GET', path);
  expectShape(Array.isArray(body), `${path}: not an array`);
  return body.map((utxo) => {
    expectShape(isObject(utxo), `${path}: not an object`);
    const { txid, vout, value, status } = utxo;
    expectShape(typeof txid === 'string' && HASH.test(txid) && isCount(vout) && isCount(value), `${path}: bad output`);
    expectShape(isObject(status) && typeof status['confirmed'] === 'boolean', `${path}: bad status`);
    const height = status['confirmed'] ? status['block_height'] : null;
    expectShape(height === null || isCount(height), `${path}: bad block height`);
    return { txHash: txid, outputIndex: vout, amountUnits: BigInt(value), blockHeight: height };
  });
}

/**
 * A node's unspent outputs at `addresses`, by address. Bitcoin Core: one `scantxoutset start` over
 * `addr(…)` descriptors (a pass over the whole UTXO set, about a minute on mainnet, whatever the
 * number of addresses; confirmed outputs only: Core's UTXO set has no mempool). bcoin, which has
 * no `scantxoutset`: its REST `GET /coin/address/:address` per address (the node needs
 * `index-address`; mempool outputs included, height -1).
 */
export async function coreUnspent(http: ProviderHttp, addresses: readonly string[], network: bitcoin.Network): Promise<Map<string, ProviderOutput[]>> {
  let result: unknown;
  try {
    result = await rpcCall(http, 'scantxoutset', ['start', addresses.map((a) => `addr(${a})`)]);
  } catch (error) {
    if (error instanceof RpcCallError && error.code === RPC_METHOD_NOT_FOUND) return bcoinUnspent(http, addresses);
    throw error;
  }
  expectShape(isObject(result) && result['success'] !== false && Array.isArray(result['unspents']), 'scantxoutset: the scan did not complete');
  const wanted = new Set(addresses);
  const found = new Map<string, ProviderOutput[]>();
  for (const utxo of result['unspents'] as unknown[]) {
    expectShape(isObject(utxo), 'scantxoutset: unspent not an object');
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
    expectShape(Array.isArray(body), `${path}: not an array`);
    const outputs = body.map((coin) => {
      expectShape(isObject(coin), `${path}: coin not an object`);
      const { hash, index, value, height, address: given } = coin;
      expectShape(typeof hash === 'string' && HASH.test(hash) && isCount(index) && isCount(value), `${path}: bad coin`);
      expectShape(given === address, `${path}: a coin of ${String(given)}`);
      expectShape(typeof height === 'number' && Number.isSafeInteger(height) && height >= -1, `${path}: bad height`);
      return { txHash: hash, outputIndex: index, amountUnits: BigInt(value), blockHeight: height < 0 ? null : height };
    });
    if (outputs.length > 0) found.set(address, outputs);
  }
  return found;
}
