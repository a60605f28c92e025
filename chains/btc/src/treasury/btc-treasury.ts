import * as bitcoin from 'bitcoinjs-lib';
import {
  chainErrors,
  treasuryChainErrors,
  type AccountKey,
  type BuildRequest,
  type DerivedAddress,
  type ChainDefinition,
  type ChainTreasury,
  type FeeEstimate,
  type NetworkDefinition,
  type ProviderEndpoint,
  type ProviderOutput,
  type ProviderPool,
  type TransactionState,
  type UnsignedTransaction,
  type VerifiedTransaction,
  type WatcherOptions,
} from '@gw/chain-api';
import type { Bip84Params } from '../bip84-params.js';
import { deriveBip84Address } from '../derive.js';
import { addressKey } from './account-derivation.js';
import { buildPlan } from './build-plan.js';
import { coreBroadcast, esploraBroadcast } from './broadcast.js';
import { coreFeeEstimate, esploraFeeEstimate } from './fee-estimates.js';
import { coreRawTransactions, esploraRawTransaction } from './raw-transactions.js';
import { coreTransaction, esploraTransaction } from './transaction-state.js';
import { P2WPKH_INPUT_VBYTES } from './transaction-size.js';
import type { TreasuryNetwork } from './treasury-network.js';
import { coreUnspent, esploraUnspent } from './unspent-outputs.js';
import { verifySigned } from './verify-signed.js';

const TXID = /^[0-9a-f]{64}$/;
/** Parallel `/address/:a/utxo` requests; public Esplora servers rate-limit hard. */
const ESPLORA_CONCURRENCY = 4;

/**
 * The treasury of one network of a BIP84 chain (Bitcoin, Litecoin): PSBTs over the gateway's
 * P2WPKH outputs, their verification once signed, and the provider calls (fee estimates,
 * broadcast, transaction state, unspent outputs) through the watcher's provider pool, by provider
 * kind: Esplora REST or a `bitcoin-core` JSON-RPC node (Bitcoin Core, Litecoin Core, bcoin).
 */
export class BtcTreasury implements ChainTreasury {
  readonly sizeUnit = 'vbyte' as const;
  readonly unsignedFormat = 'psbt' as const;
  readonly network: NetworkDefinition;
  private readonly net: TreasuryNetwork;
  private readonly providers: ProviderPool;

  constructor(definition: ChainDefinition, options: WatcherOptions, params: Bip84Params) {
    const network = params.networks[options.network.id];
    if (!network) throw new Error(`${definition.id}: no BIP84 network parameters for network ${options.network.id}`);
    this.network = options.network;
    this.providers = options.providers;
    this.net = { chain: definition.id, params, definition: options.network, network };
  }

  feeEstimate(): Promise<FeeEstimate> {
    return this.providers.run('feeEstimate', (http, endpoint) => (isCore(endpoint) ? coreFeeEstimate(http) : esploraFeeEstimate(http)));
  }

  build(request: BuildRequest): UnsignedTransaction {
    return buildPlan(request, this.net);
  }

  verifySigned(unsigned: UnsignedTransaction, signed: string): VerifiedTransaction {
    return verifySigned(unsigned, signed, this.net);
  }

  /**
   * Sends through the first provider that answers. A provider that refuses the transaction
   * answered: it is `treasury_broadcast_rejected` with its reason, not a reason to try the next.
   * One that already has it counts as sent: the refusals that say so (`ALREADY_KNOWN`), and any
   * other refusal after which the provider knows the txid (`transaction(txid)`; nodes word "I
   * have it" differently from version to version). A failed look-up leaves the refusal standing.
   */
  async broadcast(tx: VerifiedTransaction): Promise<string> {
    const outcome = await this.providers.run('broadcast', (http, endpoint) =>
      isCore(endpoint) ? coreBroadcast(http, tx.hex, tx.txid) : esploraBroadcast(http, tx.hex, tx.txid),
    );
    if (!outcome.accepted) {
      const known = await this.transaction(tx.txid).catch(() => null);
      if (known !== null) return tx.txid;
      throw treasuryChainErrors.treasury_broadcast_rejected({
        message: `The provider refused the transaction ${tx.txid}: ${outcome.reason}`,
        details: { txid: tx.txid, reason: outcome.reason },
      });
    }
    return tx.txid;
  }

  async transaction(txid: string): Promise<TransactionState | null> {
    if (typeof txid !== 'string' || !TXID.test(txid)) {
      throw chainErrors.validation_error({ message: `Not a transaction id (64 lower-case hex digits): ${String(txid).slice(0, 80)}.` });
    }
    return this.providers.run('transaction', (http, endpoint) => (isCore(endpoint) ? coreTransaction(http, txid) : esploraTransaction(http, txid)));
  }

  async unspentAt(addresses: readonly string[]): Promise<Map<string, ProviderOutput[]>> {
    const unique = [...new Set(addresses)];
    if (unique.length === 0) return new Map();
    if (this.providers.endpoints.some(isCore)) {
      return this.providers.run('unspentAt', (http, endpoint) =>
        isCore(endpoint) ? coreUnspent(http, unique, this.net.network) : esploraUnspentAll(unique, (a) => esploraUnspent(http, a)),
      );
    }
    return esploraUnspentAll(unique, (address) => this.providers.run('unspentAt', (http) => esploraUnspent(http, address)));
  }

  /** Change address `index` (branch 1) of the account: where a plan gathers to the same account (the signer derives it again). */
  changeAddress(key: AccountKey, index: number): DerivedAddress {
    const derived = addressKey(key, key.origin, 1, index, this.net.network);
    const address = bitcoin.payments.p2wpkh({ output: Buffer.from(derived.script), network: this.net.network }).address!;
    const receive = deriveBip84Address(key.canonical, key.network, 0, this.net.params, this.net.network).path;
    const account = key.origin?.path ?? receive.slice(0, -'/0/0'.length);
    return { index, address, path: `${account}/1/${index}` };
  }

  /**
   * The previous transactions of a plan's inputs (their PSBT `nonWitnessUtxo`). A node answers
   * them in batches of `getrawtransaction`; Esplora one `GET /tx/:txid/hex` per transaction, a
   * few at a time. Each answer is checked to hash to its id.
   */
  async rawTransactions(txids: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(txids)];
    for (const txid of unique) if (typeof txid !== 'string' || !TXID.test(txid)) throw new Error(`not a transaction id: ${String(txid)}`);
    if (unique.length === 0) return new Map();
    if (this.providers.endpoints.some(isCore)) {
      return this.providers.run('rawTransactions', (http, endpoint) =>
        isCore(endpoint) ? coreRawTransactions(http, unique) : esploraRawAll(unique, (txid) => esploraRawTransaction(http, txid)),
      );
    }
    return esploraRawAll(unique, (txid) => this.providers.run('rawTransactions', (http) => esploraRawTransaction(http, txid)));
  }

  inputCost(feeRate: bigint): bigint {
    return BigInt(P2WPKH_INPUT_VBYTES) * feeRate;
  }
}

async function esploraUnspentAll(addresses: readonly string[], read: (address: string) => Promise<ProviderOutput[]>): Promise<Map<string, ProviderOutput[]>> {
  const found = new Map<string, ProviderOutput[]>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < addresses.length) {
      const address = addresses[next++]!;
      const outputs = await read(address);
      if (outputs.length > 0) found.set(address, outputs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ESPLORA_CONCURRENCY, addresses.length) }, worker));
  return found;
}

async function esploraRawAll(txids: readonly string[], read: (txid: string) => Promise<string | null>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < txids.length) {
      const txid = txids[next++]!;
      const hex = await read(txid);
      if (hex !== null) found.set(txid, hex);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ESPLORA_CONCURRENCY, txids.length) }, worker));
  return found;
}

function isCore(endpoint: ProviderEndpoint): boolean {
  return endpoint.kind === 'bitcoin-core';
}
