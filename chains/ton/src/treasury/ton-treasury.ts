import {
  AppError,
  chainErrors,
  checkPayoutRequest,
  expectShape,
  treasuryChainErrors,
  type AccountPayoutRequest,
  type AccountPlanBuild,
  type AccountStep,
  type AccountSweepMethod,
  type AccountSweepRequest,
  type AccountTreasury,
  type AddressHoldings,
  type ChainDefinition,
  type NetworkDefinition,
  type ProviderPool,
  type SweepQuote,
  type TransactionState,
  type VerifiedStep,
  type VerifiedTransaction,
  type WatcherOptions,
} from '@gw/chain-api';
import { Address, type Cell } from '@ton/core';
import { formatTonAddress, tonWalletAddress, TON_MAX_SUBWALLET } from '../derive.js';
import { parseBlockList, parseMasterchainInfo } from '../toncenter.js';
import { sendExternal } from './broadcast.js';
import { buildJettonBatchPlan, JETTON_MOVE_TON, type PreparedGasWallet } from './build-jetton-batch.js';
import { buildNativePlan } from './build-native.js';
import { buildPayoutPlan, type ParsedRecipient } from './build-payout.js';
import { subwalletPath, type PreparedSource, type TonPlanContext } from './plan-context.js';
import { TonChainReads } from './ton-chain-reads.js';
import { JETTON_TRANSFER_FEE, TON_TRANSFER_DEPLOY_FEE, TON_TRANSFER_FEE, VALID_FOR_SECONDS } from './ton-fees.js';
import { decodeStepData } from './ton-step-data.js';
import { parseMessageTransactions } from './toncenter-accounts.js';
import { signatureOver } from './signed-payload.js';
import { verifySignedExternal } from './verify-signed.js';
import { readWalletStates } from './wallet-states.js';

/** Refusals a quote reports as the method being unavailable rather than throwing. */
const QUOTABLE = new Set(['treasury_method_unavailable', 'treasury_operator_account_missing', 'treasury_insufficient_value']);
const SUBWALLET_PATH = /^m\/44'\/607'\/0'\/(\d+)'$/;
/** A step this close to its valid_until is refused before broadcast: it might expire on the way. */
const EXPIRY_MARGIN_SECONDS = 600;
/** Transactions of a wallet looked at for a plan's own externals already on chain. */
const RECENT_TRANSACTIONS = 64;

export interface TonTreasuryOptions {
  /** Unix seconds now (tests); the system clock otherwise. */
  readonly now?: () => number;
}

/**
 * The account treasury of one TON network: deposit addresses are the V5R1 subwallets of one
 * ed25519 key (subwallet number = receive index), so every step is one external message of one
 * subwallet, signed offline by that one key. Methods: `native` (TON) and `jetton_batch` (the
 * configured jetton, USDT). Chain state comes through the watcher's toncenter v3 pool.
 */
export class TonTreasury implements AccountTreasury {
  readonly network: NetworkDefinition;
  readonly nativeCoin = 'ton';
  private readonly providers: ProviderPool;
  private readonly reads: TonChainReads;
  /** Token coin id → its jetton master on this network. */
  private readonly jettons = new Map<string, Address>();
  private readonly now: () => number;

  constructor(definition: ChainDefinition, options: WatcherOptions, treasuryOptions: TonTreasuryOptions = {}) {
    this.network = options.network;
    this.providers = options.providers;
    this.reads = new TonChainReads(options.providers);
    this.now = treasuryOptions.now ?? (() => Math.floor(Date.now() / 1000));
    for (const c of definition.coins) {
      const master = c.contracts?.[options.network.id];
      if (master !== undefined) this.jettons.set(c.id, Address.parse(master));
    }
  }

  /**
   * Per subwallet: TON, the jetton, seqno; per jetton what a transfer consumes (`moveCostUnits`) and
   * what the subwallet lacks of the TON it must hold to send one (`JETTON_MOVE_TON`: the transfer's
   * value and its own external); the fee of sending its TON away (`nativeMoveCostUnits`).
   */
  async holdings(addresses: readonly string[]): Promise<Map<string, AddressHoldings>> {
    const parsed = addresses.map((a) => this.parseOwnAddress(a, 'address'));
    const perCoin = new Map<string, Awaited<ReturnType<typeof readWalletStates>>>();
    for (const [coin, master] of this.jettons) perCoin.set(coin, await readWalletStates(this.reads, parsed, master));
    const plain = perCoin.size > 0 ? [...perCoin.values()][0]! : await readWalletStates(this.reads, parsed, undefined);
    const out = new Map<string, AddressHoldings>();
    addresses.forEach((address, i) => {
      const state = plain[i]!;
      const balances: Record<string, bigint> = { [this.nativeCoin]: state.ton };
      const tokens = [...perCoin].map(([coin, states]) => {
        const jettons = states[i]!.jettons;
        balances[coin] = jettons;
        // What a transfer consumes; what it lacks is against what it must hold to send one (the excess returns).
        const gasLackingUnits = state.ton >= JETTON_MOVE_TON ? 0n : JETTON_MOVE_TON - state.ton;
        return { coin, moveCostUnits: JETTON_TRANSFER_FEE, gasLackingUnits, dust: jettons === 0n };
      });
      const nativeMoveCostUnits = state.deployed ? TON_TRANSFER_FEE : TON_TRANSFER_DEPLOY_FEE;
      out.set(address, { address, balances, nonce: BigInt(state.seqno), tokens, nativeMoveCostUnits });
    });
    return out;
  }

  methods(coin: string): readonly AccountSweepMethod[] {
    if (coin === this.nativeCoin) return ['native'];
    return this.jettons.has(coin) ? ['jetton_batch'] : [];
  }

  async quote(request: AccountSweepRequest): Promise<SweepQuote[]> {
    const methods = request.method ? [request.method] : this.methods(request.coin);
    const quotes: SweepQuote[] = [];
    for (const method of methods) {
      try {
        const plan = await this.build({ ...request, method });
        quotes.push({
          method,
          available: true,
          sources: plan.steps.filter((s) => s.signer.kind === 'deposit').length,
          movedUnits: plan.movedUnits,
          feeUnits: plan.feeUnits,
          operatorPaysUnits: plan.operatorPaysUnits,
          steps: plan.steps.length,
          rounds: plan.rounds,
        });
      } catch (error) {
        // A method that cannot serve this request is a quote; a provider out of reach is not.
        if (!(error instanceof AppError) || !QUOTABLE.has(error.code)) throw error;
        const reason = error.message;
        quotes.push({ method, available: false, reason, sources: 0, movedUnits: 0n, feeUnits: 0n, operatorPaysUnits: 0n, steps: 0, rounds: 1 });
      }
    }
    return quotes;
  }

  async build(request: AccountSweepRequest): Promise<AccountPlanBuild> {
    const method = request.method ?? this.methods(request.coin)[0];
    if (method === undefined || !this.methods(request.coin).includes(method)) {
      throw treasuryChainErrors.treasury_method_unavailable({
        message: `TON moves ${request.coin} by ${this.methods(request.coin).join(', ') || 'no method'}, not ${String(request.method)}.`,
      });
    }
    if (!Array.isArray(request.sources) || request.sources.length === 0) throw chainErrors.validation_error({ message: 'A sweep needs at least one source.' });
    const publicKeyHex = request.sources[0]!.key.canonical;
    if (request.sources.some((s) => s.key.canonical !== publicKeyHex)) {
      throw chainErrors.validation_error({ message: 'A TON plan spends the subwallets of one key: the sources belong to several keys.' });
    }
    const publicKey = Buffer.from(publicKeyHex, 'hex');
    const ctx = this.context(request.destination, publicKey);
    const master = method === 'jetton_batch' ? this.jettons.get(request.coin) : undefined;

    const wallets = request.sources.map((s) => {
      if (!Number.isInteger(s.index) || s.index < 0 || s.index > TON_MAX_SUBWALLET)
        throw chainErrors.validation_error({ message: `Bad subwallet index ${s.index}.` });
      const wallet = tonWalletAddress(publicKey, this.network.kind, s.index);
      if (!wallet.equals(this.parseOwnAddress(s.address, 'source'))) {
        throw chainErrors.validation_error({ message: `Source ${s.address} is not subwallet ${s.index} of its key.` });
      }
      return wallet;
    });
    let gasWallet: { account: NonNullable<AccountSweepRequest['operatorAccounts']['gas']>; subwallet: number; address: Address } | undefined;
    if (method === 'jetton_batch') {
      const account = request.operatorAccounts.gas;
      if (!account)
        throw treasuryChainErrors.treasury_operator_account_missing({ message: 'jetton_batch needs the gas subwallet (operator account role "gas").' });
      const match = SUBWALLET_PATH.exec(account.path);
      const subwallet = match ? Number(match[1]) : Number.NaN;
      if (!(subwallet >= 0 && subwallet <= TON_MAX_SUBWALLET)) {
        throw chainErrors.validation_error({ message: `The gas subwallet's path must be m/44'/607'/0'/<subwallet>'; got ${account.path}.` });
      }
      const address = tonWalletAddress(publicKey, this.network.kind, subwallet);
      if (!address.equals(this.parseOwnAddress(account.address, 'gas subwallet'))) {
        throw chainErrors.validation_error({ message: `The gas account ${account.address} is not subwallet ${subwallet} of the sources' key.` });
      }
      if (wallets.some((w) => w.equals(address))) throw chainErrors.validation_error({ message: 'The gas subwallet cannot also be a source.' });
      gasWallet = { account, subwallet, address };
    }

    const states = await readWalletStates(this.reads, gasWallet ? [...wallets, gasWallet.address] : wallets, master);
    const prepared: PreparedSource[] = request.sources.map((source, i) => ({ source, subwallet: source.index, state: states[i]! }));
    const minUnits = request.minUnits ?? 0n;
    if (method === 'native') return buildNativePlan(ctx, prepared, minUnits);
    const gas: PreparedGasWallet = { account: gasWallet!.account, subwallet: gasWallet!.subwallet, state: states.at(-1)! };
    return buildJettonBatchPlan(ctx, request.coin, master!, prepared, gas, minUnits);
  }

  /**
   * See `AccountTreasury.buildPayout` and build-payout.ts. The sender is a pool subwallet (its
   * key's public key) or the operator's funding subwallet (`m/44'/607'/0'/<n>'`), whose public key
   * is read from the deployed wallet (`get_public_key`; a V5R1 address commits to the key but does
   * not reveal it), so a funding subwallet must have sent once before it pays out.
   */
  async buildPayout(request: AccountPayoutRequest): Promise<AccountPlanBuild> {
    const isAddress = (address: string): boolean => {
      try {
        this.parseDestination(address);
        return true;
      } catch {
        return false;
      }
    };
    const operator = checkPayoutRequest(request, isAddress, this.network.id);
    const master = request.coin === this.nativeCoin ? undefined : this.jettons.get(request.coin);
    if (request.coin !== this.nativeCoin && !master)
      throw chainErrors.validation_error({ message: `${String(request.coin)} is not a coin of TON on ${this.network.id}.` });
    const recipients: ParsedRecipient[] = request.recipients.map((r) => ({ ...r, ...this.recipientOf(r.address) }));
    let subwallet: number;
    let publicKey: Buffer;
    let signer: AccountStep['signer'];
    let address: Address;
    if (operator) {
      const match = SUBWALLET_PATH.exec(operator.path);
      subwallet = match ? Number(match[1]) : Number.NaN;
      if (!(subwallet >= 0 && subwallet <= TON_MAX_SUBWALLET))
        throw chainErrors.validation_error({ message: `The funding subwallet's path must be m/44'/607'/0'/<subwallet>'; got ${operator.path}.` });
      address = this.parseOwnAddress(operator.address, 'funding subwallet');
      const account = (await this.reads.accounts([address])).get(address.toRawString());
      if (account?.status !== 'active')
        throw treasuryChainErrors.treasury_method_unavailable({
          message: `The funding subwallet ${operator.address} is not deployed: its public key is not on chain yet. Send one transaction from it first.`,
        });
      publicKey = await this.reads.publicKey(address);
      if (!tonWalletAddress(publicKey, this.network.kind, subwallet).equals(address))
        throw chainErrors.validation_error({ message: `The funding account ${operator.address} is not subwallet ${subwallet} of its own key.` });
      signer = { kind: 'operator', account: operator };
    } else {
      const { source } = request.from as Extract<AccountPayoutRequest['from'], { kind: 'deposit' }>;
      subwallet = source.index;
      publicKey = Buffer.from(source.key.canonical, 'hex');
      address = tonWalletAddress(publicKey, this.network.kind, subwallet);
      if (!address.equals(this.parseOwnAddress(source.address, 'source')))
        throw chainErrors.validation_error({ message: `Source ${source.address} is not subwallet ${subwallet} of its key.` });
      signer = { kind: 'deposit', address: source.address, key: source.key, index: source.index, path: subwalletPath(subwallet) };
    }
    const [state] = await readWalletStates(this.reads, [address], master);
    const ctx = { ...this.context(recipients[0]!.address, publicKey) };
    return buildPayoutPlan(ctx, request.coin, { subwallet, signer, state: state! }, recipients, master ? { master } : undefined, operator !== undefined);
  }

  continue(): AccountStep[] {
    return [];
  }

  verifySigned(step: AccountStep, signed: string): VerifiedStep {
    return verifySignedExternal(step, signed, this.network.kind);
  }

  /**
   * Refuses the plan when a wallet's seqno on chain is past a seqno the plan gives it and that
   * external is not the plan's own (it sent another one since), when the chain is behind the plan's
   * lowest seqno for it (the plan expects externals that never happened), or when a step is about to
   * outlive its valid_until. A step already on chain (its payload is in one of the wallet's recent
   * externals) is not stale: a plan resumed after a partial broadcast passes. `_txids` is not needed:
   * the wallet's recent externals are searched for each step's payload.
   */
  async checkFresh(steps: readonly AccountStep[], _txids?: ReadonlyMap<string, string>): Promise<void> {
    const byWallet = new Map<string, { address: Address; steps: { id: string; seqno: number; payload: Cell }[] }>();
    for (const step of steps) {
      if (step.unsigned.format !== 'ton-external') continue;
      const data = decodeStepData(step.unsigned.data);
      if (data.valid_until - EXPIRY_MARGIN_SECONDS <= this.now()) {
        throw treasuryChainErrors.treasury_nonce_stale({ message: `Step ${step.id} expires at ${data.valid_until} (unix): make a new plan.` });
      }
      const address = Address.parse(data.wallet);
      const entry = byWallet.get(address.toRawString()) ?? { address, steps: [] };
      entry.steps.push({ id: step.id, seqno: data.seqno, payload: data.payloadCell });
      byWallet.set(address.toRawString(), entry);
    }
    const wallets = [...byWallet.values()];
    const accounts = await this.reads.accounts(wallets.map((w) => w.address));
    for (const w of wallets) {
      const deployed = accounts.get(w.address.toRawString())?.status === 'active';
      const seqno = deployed ? await this.reads.seqno(w.address) : 0;
      const shown = formatTonAddress(w.address, this.network.kind);
      const lowest = w.steps.reduce((a, b) => (b.seqno < a.seqno ? b : a));
      if (lowest.seqno > seqno) {
        throw treasuryChainErrors.treasury_nonce_stale({ message: `Step ${lowest.id}: ${shown} is at seqno ${seqno}, the plan signed seqno ${lowest.seqno}.` });
      }
      const done = w.steps.filter((s) => s.seqno < seqno);
      if (done.length === 0) continue;
      const bodies = await this.reads.recentExternalBodies(w.address, RECENT_TRANSACTIONS);
      for (const s of done) {
        if (!bodies.some((body) => signatureOver(body, s.payload) !== undefined)) {
          throw treasuryChainErrors.treasury_nonce_stale({
            message: `Step ${s.id}: ${shown} is at seqno ${seqno}, the plan signed seqno ${s.seqno} and another external used it.`,
          });
        }
      }
    }
  }

  async broadcast(tx: VerifiedTransaction): Promise<string> {
    const boc = Buffer.from(tx.hex, 'hex').toString('base64');
    const outcome = await this.providers.run('ton.broadcast', (http) => sendExternal(http, boc));
    if (outcome.accepted) return tx.txid;
    const known = await this.transaction(tx.txid).catch(() => null);
    if (known) return tx.txid;
    throw treasuryChainErrors.treasury_broadcast_rejected({ message: `The provider refused the external: ${outcome.reason}` });
  }

  async transaction(txid: string): Promise<TransactionState | null> {
    expectShape(/^[0-9a-f]{64}$/.test(txid), 'a TON txid is the external message hash, 64 hex');
    return this.providers.run('ton.transaction', async (http) => {
      const query = new URLSearchParams({ msg_hash: txid, direction: 'in', limit: '1' });
      const [found] = parseMessageTransactions(await http.json('GET', `/api/v3/transactionsByMessage?${query}`));
      if (!found) return null;
      const head = parseMasterchainInfo(await http.json('GET', '/api/v3/masterchainInfo'));
      const blockQuery = new URLSearchParams({ workchain: '-1', shard: '8000000000000000', seqno: String(found.mcBlockSeqno), limit: '1' });
      const block = parseBlockList(await http.json('GET', `/api/v3/blocks?${blockQuery}`), found.mcBlockSeqno);
      return {
        txid,
        confirmations: Math.max(0, head.seqno - found.mcBlockSeqno + 1),
        blockHeight: found.mcBlockSeqno,
        blockHash: block?.rootHash ?? null,
        feeUnits: found.totalFees,
      };
    });
  }

  private context(destination: string, publicKey: Buffer): TonPlanContext {
    const parsed = this.parseDestination(destination);
    return {
      network: this.network.kind,
      publicKey,
      destination: parsed.address,
      destinationText: destination,
      destinationBounce: parsed.bounce,
      validUntil: this.now() + VALID_FOR_SECONDS,
      nativeCoin: this.nativeCoin,
    };
  }

  private recipientOf(address: string): { parsed: Address; bounce: boolean } {
    const { address: parsed, bounce } = this.parseDestination(address);
    return { parsed, bounce };
  }

  private parseDestination(destination: string): { address: Address; bounce: boolean } {
    try {
      if (typeof destination === 'string' && Address.isFriendly(destination)) {
        const f = Address.parseFriendly(destination);
        if (f.address.workChain === 0 && f.isTestOnly === (this.network.kind === 'testnet')) return { address: f.address, bounce: f.isBounceable };
      } else if (typeof destination === 'string' && Address.isRaw(destination)) {
        const a = Address.parseRaw(destination);
        if (a.workChain === 0) return { address: a, bounce: true };
      }
    } catch {
      // falls through to the refusal
    }
    throw treasuryChainErrors.treasury_wrong_network({ message: `${String(destination)} is not a basechain address of ${this.network.name}.` });
  }

  private parseOwnAddress(address: string, what: string): Address {
    try {
      return Address.parse(address);
    } catch (cause) {
      throw chainErrors.validation_error({ message: `The ${what} ${String(address)} is not a TON address.`, cause });
    }
  }
}
