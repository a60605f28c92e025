import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import {
  chainErrors,
  expectShape,
  ProviderError,
  treasuryChainErrors,
  type AccountKey,
  type BuildRequest,
  type ChainTreasury,
  type DerivedAddress,
  type FeeEstimate,
  type NetworkDefinition,
  type ProviderHttp,
  ProviderPool,
  type ProviderOutput,
  type TransactionState,
  type UnsignedTransaction,
  type VerifiedTransaction,
  type WatcherOptions,
} from '@gw/chain-api';
import { deriveAdaAddress } from '../derive.js';
import { mapLimit } from '../map-limit.js';
import { adaProviderKind } from '../provider-kinds.js';
import { buildAdaTransaction } from './build-transaction.js';
import { parseLedgerSnapshot, type LedgerSnapshot } from './ledger-snapshot.js';
import { parseAddressUtxoPage, parseBlockHeight, parseIncludedTransaction, parseMempoolTransaction, type AddressUtxo } from './provider-answers.js';
import { inputsAlreadySpent, submitCbor } from './submit-transaction.js';
import { verifyAdaSigned } from './verify-signed.js';

/** Blockfrost's largest page. */
const PAGE_SIZE = 100;
/** Requests in flight at once (Blockfrost's free tier bursts to 500, then 10/s). */
const CONCURRENCY = 5;
/**
 * Bytes one more input adds to a transaction: the input (array header, 32-byte hash, index) and,
 * as pool addresses each have their own payment key, one vkey witness (array header, 32-byte key,
 * 64-byte signature, with their byte-string headers): 36 + 101.
 */
export const INPUT_WITH_WITNESS_BYTES = 137n;
/** Block hash → height is fixed once a block exists: remembered across reconciliations, up to this many (the oldest go first). */
const BLOCK_HEIGHT_CACHE = 50_000;
/**
 * Pages of one address's unspent outputs read at most (20,000 outputs): a provider that keeps
 * answering full pages (one that ignores `?page=` and repeats page 1 is caught sooner, by its
 * repeated outputs) is malformed, not an address to read forever.
 */
export const MAX_UTXO_PAGES = 200;
const TXID = /^[0-9a-f]{64}$/;

/**
 * The Cardano treasury of one network (issue 35) over Blockfrost-compatible providers: the
 * `blockfrost` endpoints of the pool the watcher reads (with its timeout, budget and metrics).
 * Koios endpoints are never asked: a network whose providers are Koios only (the public defaults)
 * has a treasury that refuses every provider call with `treasury_providers_unsupported`, naming
 * the fix; building and verifying plans need no provider. Koios shows no mempool, and the reads
 * here (protocol parameters, unspent outputs with their tokens, submission and the
 * already-submitted check) are written against Blockfrost's answers (docs/decisions.md,
 * "Cardano through Koios").
 *
 * `build` needs the protocol parameters and the tip's slot. `createTreasury` cannot fetch them (it
 * is synchronous), so `feeEstimate()` reads them and keeps them (a {@link LedgerSnapshot}), and
 * `build` uses the last snapshot, stays synchronous and pure, and throws `validation_error` ("call
 * feeEstimate() first") when `feeEstimate()` was never called on this instance: call it before building a plan (a plan's fee
 * rate comes from it anyway). The TTL counts the slots gone by since the snapshot (one a second),
 * so an older snapshot still gives a full margin; protocol parameters change only at epoch
 * boundaries.
 *
 * Fee rates are lovelace per byte: the estimate is `min_fee_a` for all three (Cardano has no fee
 * market: a transaction paying the minimum is included as fast as one paying more), and `build`
 * adds `min_fee_b` to `rate × size`.
 */
export class AdaTreasury implements ChainTreasury {
  readonly network: NetworkDefinition;
  readonly sizeUnit = 'byte' as const;
  readonly unsignedFormat = 'cardano-tx' as const;
  private snapshot: LedgerSnapshot | undefined;
  private readonly blockHeights = new Map<string, number>();
  /** The Blockfrost-compatible endpoints of the watcher's pool; undefined when it has none. */
  private readonly blockfrost: ProviderPool | undefined;

  constructor(
    private readonly options: WatcherOptions,
    /** The clock, ms (tests pin it). */
    private readonly now: () => number = Date.now,
    /** Bounds, {@link BLOCK_HEIGHT_CACHE} and {@link MAX_UTXO_PAGES} by default (tests lower them). */
    private readonly limits: { readonly blockHeightCache: number; readonly utxoPages: number } = {
      blockHeightCache: BLOCK_HEIGHT_CACHE,
      utxoPages: MAX_UTXO_PAGES,
    },
  ) {
    this.network = options.network;
    const { providers } = options;
    const readable = providers.endpoints.filter((e) => adaProviderKind(e) === 'blockfrost');
    this.blockfrost =
      readable.length === 0
        ? undefined
        : readable.length === providers.endpoints.length
          ? providers
          : new ProviderPool({ ...providers.options, endpoints: readable });
  }

  /** The providers the treasury asks; refuses (422 `treasury_providers_unsupported`) without a Blockfrost-compatible one. */
  private providers(): ProviderPool {
    if (this.blockfrost) return this.blockfrost;
    throw treasuryChainErrors.treasury_providers_unsupported({
      message:
        `Cardano's treasury reads Blockfrost-compatible providers, and those of ${this.network.id} are Koios only. ` +
        'Add a Blockfrost provider (a free project key) or your own node behind a Blockfrost-compatible API to plugins.watchers.chains.ada, with "publicProviders": "join" to keep the public ones watching.',
      details: { chain: 'ada', network: this.network.id, providers: this.options.providers.endpoints.map((e) => e.name) },
    });
  }

  /** The protocol parameters and tip slot `build` uses: those the last `feeEstimate()` read. */
  get ledger(): LedgerSnapshot | undefined {
    return this.snapshot;
  }

  /** `GET /epochs/latest/parameters` and `GET /blocks/latest` from one provider; keeps them for `build`. */
  async feeEstimate(): Promise<FeeEstimate> {
    const snapshot = await this.providers().run('fee_estimate', async (http) =>
      parseLedgerSnapshot(await http.json('GET', '/epochs/latest/parameters'), await http.json('GET', '/blocks/latest'), this.now()),
    );
    this.snapshot = snapshot;
    return { nextBlock: snapshot.minFeeA, hour: snapshot.minFeeA, minimum: snapshot.minFeeA };
  }

  build(request: BuildRequest): UnsignedTransaction {
    if (!this.snapshot) {
      throw chainErrors.validation_error({
        message: 'Building a Cardano plan needs the protocol parameters and tip slot: call feeEstimate() first on this treasury.',
      });
    }
    return buildAdaTransaction(request, { network: this.network.kind, snapshot: this.snapshot, nowMs: this.now() });
  }

  verifySigned(unsigned: UnsignedTransaction, signed: string): VerifiedTransaction {
    return verifyAdaSigned(unsigned, signed, this.network.kind);
  }

  /**
   * `POST /tx/submit` (CBOR). A node's refusal is `treasury_broadcast_rejected` with its message,
   * except `All inputs are spent` (`BadInputsUTxO`) for a transaction the provider already has in a
   * block (`GET /txs/{hash}`) or its mempool (`GET /mempool/{hash}`), read as `transaction` reads
   * them and naming this very id (any other answer is malformed, and the next provider is asked): a
   * repeated broadcast, which resolves like the first.
   */
  async broadcast(tx: VerifiedTransaction): Promise<string> {
    let bytes: Uint8Array;
    let txid: string;
    try {
      const parsed = CSL.FixedTransaction.from_hex(tx.hex);
      bytes = parsed.to_bytes();
      txid = parsed.transaction_hash().to_hex();
    } catch (cause) {
      throw chainErrors.validation_error({ message: 'Not a Cardano transaction in hex.', cause });
    }
    if (txid !== tx.txid) throw chainErrors.validation_error({ message: `The transaction's id is ${txid}, not ${tx.txid}.` });
    const outcome = await this.providers().run('broadcast', async (http, endpoint) => {
      const answer = await submitCbor(this.providers(), endpoint, bytes);
      if (answer.accepted) {
        expectShape(answer.txid === txid, `tx/submit: answered ${JSON.stringify(answer.txid).slice(0, 80)} for ${txid}`);
        return { accepted: true } as const;
      }
      if (inputsAlreadySpent(answer.message) && (await this.known(http, txid))) return { accepted: true } as const;
      return { accepted: false, message: answer.message } as const;
    });
    if (!outcome.accepted) {
      throw treasuryChainErrors.treasury_broadcast_rejected({
        message: `The provider refused the transaction: ${outcome.message.slice(0, 500)}`,
        details: { txid, provider_message: outcome.message.slice(0, 2000) },
      });
    }
    return txid;
  }

  /**
   * `GET /txs/{hash}` and the tip (`GET /blocks/latest`) from one provider; when the transaction is
   * in no block, `GET /mempool/{hash}` (Blockfrost keeps the transactions submitted through it
   * there until they are included): found, 0 confirmations; not found either, null.
   */
  async transaction(txid: string): Promise<TransactionState | null> {
    if (!TXID.test(txid)) throw chainErrors.validation_error({ message: 'A Cardano transaction id is 64 lower-case hex digits.' });
    return this.providers().run('transaction', async (http) => {
      const body = await http.json('GET', `/txs/${txid}`, { allowNotFound: true });
      if (body === undefined) {
        const pending = await http.json('GET', `/mempool/${txid}`, { allowNotFound: true });
        if (pending === undefined) return null;
        return { txid, confirmations: 0, blockHeight: null, blockHash: null, ...parseMempoolTransaction(pending, txid) };
      }
      const included = parseIncludedTransaction(body, txid);
      const tip = parseBlockHeight(await http.json('GET', '/blocks/latest'), 'blocks/latest');
      expectShape(tip >= included.blockHeight, `blocks/latest: tip ${tip} below the transaction's block ${included.blockHeight}`);
      return {
        txid,
        confirmations: tip - included.blockHeight + 1,
        blockHeight: included.blockHeight,
        blockHash: included.blockHash,
        feeUnits: included.feeUnits,
        size: included.size,
      };
    });
  }

  /**
   * `GET /addresses/{address}/utxos?page=N&count=100` for each address (paged; 404, an address the
   * chain never saw, is none): lovelace as `amountUnits`, native tokens as `assets`; then
   * `GET /blocks/{hash}` once per block not seen before, for the heights (Blockfrost's unspent
   * outputs are all in blocks). Requests: one per address and page, plus one per new block. An
   * answer listing an output of another address, the same output twice (a provider that ignores
   * `?page=`), or more than {@link MAX_UTXO_PAGES} full pages is malformed.
   */
  /**
   * Always empty, without a request: a Cardano plan needs no previous transaction. The body a
   * signature covers names its inputs and states its fee, and the ledger requires inputs =
   * outputs + fee: a plan that misstated what an input holds makes a transaction the ledger
   * refuses, never one paying a larger fee than the signer was shown (Bitcoin's segwit v0
   * input-amount attack has no Cardano counterpart).
   */
  async rawTransactions(_txids: readonly string[]): Promise<Map<string, string>> {
    return new Map();
  }

  async unspentAt(addresses: readonly string[]): Promise<Map<string, ProviderOutput[]>> {
    const unique = [...new Set(addresses)];
    const found = await mapLimit(unique, CONCURRENCY, (address) => this.providers().run('unspent', (http) => this.utxosOf(http, address)));
    // This call's heights: the shared cache may evict an entry while the call runs, this map does not.
    const heights = new Map<string, number>();
    const missing: string[] = [];
    for (const hash of new Set(found.flat().map((utxo) => utxo.block))) {
      const cached = this.blockHeights.get(hash);
      if (cached === undefined) missing.push(hash);
      else heights.set(hash, cached);
    }
    await mapLimit(missing, CONCURRENCY, (hash) =>
      this.providers().run('block_height', async (http) => {
        const height = parseBlockHeight(await http.json('GET', `/blocks/${hash}`), `blocks/${hash}`);
        heights.set(hash, height);
        this.rememberHeight(hash, height);
      }),
    );
    const result = new Map<string, ProviderOutput[]>();
    unique.forEach((address, i) => {
      const utxos = found[i]!;
      if (utxos.length === 0) return;
      result.set(
        address,
        utxos.map(({ txHash, outputIndex, amountUnits, block, assets }) => ({ txHash, outputIndex, amountUnits, blockHeight: heights.get(block)!, assets })),
      );
    });
    return result;
  }

  /** Change address `index` (CIP-1852 internal chain, role 1) of the account, with the account's stake key. */
  changeAddress(key: AccountKey, index: number): DerivedAddress {
    return { index, ...deriveAdaAddress(key.canonical, key.network, index, 1) };
  }

  /** Lovelace per byte × the bytes one more input and its witness add (see {@link INPUT_WITH_WITNESS_BYTES}). */
  inputCost(feeRate: bigint): bigint {
    const minimum = this.snapshot?.minFeeA ?? 0n;
    return (feeRate > minimum ? feeRate : minimum) * INPUT_WITH_WITNESS_BYTES;
  }

  /** Remembers a block's height; past the cache's size, the entry remembered first goes. */
  private rememberHeight(hash: string, height: number): void {
    this.blockHeights.set(hash, height);
    while (this.blockHeights.size > this.limits.blockHeightCache) this.blockHeights.delete(this.blockHeights.keys().next().value!);
  }

  private async utxosOf(http: ProviderHttp, address: string): Promise<AddressUtxo[]> {
    const utxos: AddressUtxo[] = [];
    const seen = new Set<string>();
    for (let page = 1; page <= this.limits.utxoPages; page++) {
      const path = `/addresses/${encodeURIComponent(address)}/utxos?page=${page}&count=${PAGE_SIZE}`;
      const body = await http.json('GET', path, { allowNotFound: true });
      if (body === undefined) return utxos;
      const batch = parseAddressUtxoPage(body, address, path);
      for (const utxo of batch) {
        const outpoint = `${utxo.txHash}#${utxo.outputIndex}`;
        expectShape(!seen.has(outpoint), `${path}: output ${outpoint} listed twice (the provider ignores ?page=?)`);
        seen.add(outpoint);
      }
      utxos.push(...batch);
      if (batch.length < PAGE_SIZE) return utxos;
    }
    throw new ProviderError(
      'malformed',
      '',
      `malformed provider response: addresses/${address.slice(0, 120)}/utxos: more than ${this.limits.utxoPages} full pages`,
    );
  }

  /** Whether the provider has this transaction in a block or in its mempool; an answer about another transaction is malformed. */
  private async known(http: ProviderHttp, txid: string): Promise<boolean> {
    const included = await http.json('GET', `/txs/${txid}`, { allowNotFound: true });
    if (included !== undefined) {
      parseIncludedTransaction(included, txid);
      return true;
    }
    const pending = await http.json('GET', `/mempool/${txid}`, { allowNotFound: true });
    if (pending === undefined) return false;
    parseMempoolTransaction(pending, txid);
    return true;
  }
}
