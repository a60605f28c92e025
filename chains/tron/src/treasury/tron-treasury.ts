import {
  AppError,
  chainErrors,
  checkPayoutRequest,
  treasuryChainErrors,
  type AccountPayoutRequest,
  type AccountPlanBuild,
  type AccountSource,
  type AccountStep,
  type AccountSweepMethod,
  type AccountSweepRequest,
  type AccountTreasury,
  type ActivationRequest,
  type AddressHoldings,
  type ChainDefinition,
  type CoinDefinition,
  type NetworkDefinition,
  type OperatorAccount,
  type SweepQuote,
  type TokenMoveCost,
  type TransactionState,
  type VerifiedStep,
  type VerifiedTransaction,
  type WatcherOptions,
} from '@gw/chain-api';
import { deriveTronAddress, isTronAddress } from '../derive.js';
import { DEFAULT_ACTIVATION_SUN, planActivation } from './activation-plan.js';
import type { ChainPrices } from './node-answers.js';
import { TronNodeReads } from './node-reads.js';
import { bandwidthBytes, referenceBlock, trc20Transfer, type ReferenceBlock } from './offline-transaction.js';
import { checkTronFresh } from './plan-freshness.js';
import { bandwidthCost, energyCost, feeLimitFor } from './resource-costs.js';
import { planTronPayout } from './payout-plan.js';
import { planSweep } from './sweep-plan.js';
import type { OperatorState, SourceState, SweepState } from './sweep-state.js';
import { verifyTronSigned } from './verify-signed.js';

/** Requests to one provider in flight at once (TronGrid's keyless limit is low). */
const CONCURRENCY = 4;

export interface TronTreasuryOptions {
  /** TRX (sun) an activation sends each address; 1 TRX by default. */
  readonly activationSun?: bigint;
}

async function mapLimit<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return out;
}

/**
 * The TRON account treasury of one network (issue 36) over the watcher's provider pool. Every
 * transaction is built offline with `tronweb` from one reference block read per plan, expiring 24 h
 * later (the most java-tron allows) so it can be signed offline; the signer gives back the signed
 * transaction JSON, verified here with the same library and broadcast as protobuf hex.
 *
 * - `trx`: `native` (each address sends its balance less its bandwidth fee).
 * - TRC-20 (`usdt_trc20`): `energy_delegation` (the staking account lends the energy, then takes it
 *   back) and `energy_burn` (the address burns TRX for energy, topped up by the funding account).
 * - `activated` / `buildActivation`: which pool addresses exist on chain, and one batch of 1 TRX
 *   transfers from the funding account that creates the others.
 */
export class TronTreasury implements AccountTreasury {
  readonly network: NetworkDefinition;
  readonly nativeCoin: string;
  private readonly reads: TronNodeReads;
  /** Coin id → its TRC-20 contract on this network. */
  private readonly tokens: ReadonlyMap<string, { readonly contract: string; readonly coin: CoinDefinition }>;
  private readonly activationSun: bigint;

  constructor(
    private readonly definition: ChainDefinition,
    options: WatcherOptions,
    settings: TronTreasuryOptions = {},
  ) {
    this.network = options.network;
    this.reads = new TronNodeReads(options.providers);
    const native = definition.coins.find((c) => !c.contracts);
    if (!native) throw new Error(`${definition.id} has no native coin`);
    this.nativeCoin = native.id;
    const tokens = new Map<string, { contract: string; coin: CoinDefinition }>();
    for (const coin of definition.coins) {
      const contract = coin.contracts?.[options.network.id];
      if (contract !== undefined) tokens.set(coin.id, { contract, coin });
    }
    this.tokens = tokens;
    this.activationSun = settings.activationSun ?? DEFAULT_ACTIVATION_SUN;
  }

  async activated(addresses: readonly string[]): Promise<Set<string>> {
    const unique = [...new Set(addresses)];
    for (const address of unique) this.checkAddress(address, 'validation_error');
    const exists = await mapLimit(unique, (address) => this.reads.account(address));
    return new Set(unique.filter((_, i) => exists[i] !== undefined));
  }

  async holdings(addresses: readonly string[]): Promise<Map<string, AddressHoldings>> {
    const unique = [...new Set(addresses)];
    for (const address of unique) this.checkAddress(address, 'validation_error');
    const pricing =
      unique.length > 0 && this.tokens.size > 0 ? { prices: await this.reads.prices(), ref: referenceBlock(await this.reads.nowBlock()) } : undefined;
    const rows = await mapLimit(unique, (address) => this.holdingsOf(address, pricing));
    return new Map(rows.map((row) => [row.address, row]));
  }

  methods(coin: string): readonly AccountSweepMethod[] {
    if (coin === this.nativeCoin) return ['native'];
    if (this.tokens.has(coin)) return ['energy_delegation', 'energy_burn'];
    return [];
  }

  async quote(request: AccountSweepRequest): Promise<SweepQuote[]> {
    const methods = this.requestedMethods(request);
    const state = await this.readSweepState(request);
    return methods.map((method) => {
      try {
        const build = planSweep(state, method);
        return {
          method,
          available: true,
          sources: build.steps.filter((s) => s.signer.kind === 'deposit').length,
          movedUnits: build.movedUnits,
          feeUnits: build.feeUnits,
          operatorPaysUnits: build.operatorPaysUnits,
          steps: build.steps.length,
          rounds: 1,
        };
      } catch (error) {
        if (!(error instanceof AppError) || !error.code.startsWith('treasury_')) throw error;
        return { method, available: false, reason: error.message, sources: 0, movedUnits: 0n, feeUnits: 0n, operatorPaysUnits: 0n, steps: 0, rounds: 1 };
      }
    });
  }

  async build(request: AccountSweepRequest): Promise<AccountPlanBuild> {
    const methods = this.requestedMethods(request);
    const state = await this.readSweepState(request);
    if (request.method !== undefined) return planSweep(state, request.method);
    // The cheapest method that can be built: fewest fees, then least paid by the operator.
    let best: AccountPlanBuild | undefined;
    let firstError: unknown;
    for (const method of methods) {
      try {
        const build = planSweep(state, method);
        if (!best || build.feeUnits < best.feeUnits || (build.feeUnits === best.feeUnits && build.operatorPaysUnits < best.operatorPaysUnits)) best = build;
      } catch (error) {
        firstError ??= error;
      }
    }
    if (!best) throw firstError;
    return best;
  }

  async buildActivation(request: ActivationRequest): Promise<AccountPlanBuild> {
    const funding = request.operatorAccounts.funding;
    if (funding === undefined) throw treasuryChainErrors.treasury_operator_account_missing({ message: 'Activating TRON addresses needs the funding account.' });
    this.checkOperator(funding);
    const unique = [...new Set(request.addresses)];
    if (unique.length === 0) throw chainErrors.validation_error({ message: 'No addresses to activate.' });
    for (const address of unique) this.checkAddress(address, 'validation_error');
    if (unique.includes(funding.address)) throw chainErrors.validation_error({ message: 'The funding account cannot activate itself.' });
    const [block, prices, fundingOnChain, accounts] = await Promise.all([
      this.reads.nowBlock(),
      this.reads.prices(),
      this.reads.account(funding.address),
      mapLimit(unique, (address) => this.reads.account(address)),
    ]);
    return planActivation({
      funding,
      fundingOnChain,
      addresses: unique.map((address, i) => ({ address, exists: accounts[i] !== undefined })),
      block,
      prices,
      amount: this.activationSun,
    });
  }

  /** See `AccountTreasury.buildPayout` and payout-plan.ts: the sender's state, each recipient's account and (tokens) the simulated transfer. */
  async buildPayout(request: AccountPayoutRequest): Promise<AccountPlanBuild> {
    const operator = checkPayoutRequest(request, isTronAddress, this.network.id);
    const token = this.tokens.get(request.coin);
    if (request.coin !== this.nativeCoin && !token) throw chainErrors.validation_error({ message: `TRON ${this.network.id} has no coin ${request.coin}.` });
    let signer: AccountStep['signer'];
    if (operator) {
      this.checkOperator(operator);
      signer = { kind: 'operator', account: operator };
    } else {
      const { source } = request.from as Extract<AccountPayoutRequest['from'], { kind: 'deposit' }>;
      signer = { kind: 'deposit', address: source.address, key: source.key, index: source.index, path: this.pathOf(source) };
    }
    const sender = operator ? operator.address : (signer as Extract<AccountStep['signer'], { kind: 'deposit' }>).address;
    if (request.recipients.some((r) => r.address === sender)) throw chainErrors.validation_error({ message: 'A recipient is the sender itself.' });
    const [block, prices, account] = await Promise.all([this.reads.nowBlock(), this.reads.prices(), this.reads.account(sender)]);
    const bandwidthLeft = account === undefined ? undefined : (await this.reads.resource(sender)).bandwidthLeft;
    const units = token === undefined ? (account?.balance ?? 0n) : account === undefined ? 0n : await this.reads.tokenBalance(sender, token.contract);
    const total = request.recipients.reduce((sum, r) => sum + r.units, 0n);
    // A transfer is simulated only when the sender holds what the payout sends (the node would answer a revert).
    const simulate = token !== undefined && units >= total;
    const recipients = await mapLimit(request.recipients, async (r) => ({
      ...r,
      exists: token === undefined ? (await this.reads.account(r.address)) !== undefined : true,
      simulation: simulate ? await this.reads.simulateTransfer(sender, token.contract, r.address, r.units) : undefined,
    }));
    return planTronPayout({
      coin: request.coin,
      contract: token?.contract,
      decimals: (token?.coin ?? this.definition.coins.find((c) => c.id === this.nativeCoin)!).decimals,
      sender: { address: sender, signer, account, bandwidthLeft, units },
      recipients,
      block,
      prices,
      operator: operator !== undefined,
    });
  }

  continue(): AccountStep[] {
    return [];
  }

  verifySigned(step: AccountStep, signed: string): VerifiedStep {
    if (step.unsigned.format !== 'tron-tx') throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id} is no TRON transaction.` });
    return verifyTronSigned(step, signed);
  }

  /** `_txids` is not needed: a TRON transaction's id is the hash of its unsigned data, so the plan's own steps are found without it. */
  async checkFresh(steps: readonly AccountStep[], _txids?: ReadonlyMap<string, string>): Promise<void> {
    await checkTronFresh(
      steps,
      this.reads,
      async (address, coin) => {
        if (coin === this.nativeCoin) return (await this.reads.account(address))?.balance ?? 0n;
        const token = this.tokens.get(coin);
        if (!token) throw chainErrors.validation_error({ message: `TRON ${this.network.id} has no coin ${coin}.` });
        return this.reads.tokenBalance(address, token.contract);
      },
      (coin) => this.definition.coins.find((c) => c.id === coin)?.decimals ?? 0,
    );
  }

  async broadcast(tx: VerifiedTransaction): Promise<string> {
    const answer = await this.reads.broadcastHex(tx.hex);
    // The node already has it (a repeated broadcast, or another provider relayed it): done.
    if (answer.accepted || answer.code === 'DUP_TRANSACTION_ERROR') return tx.txid;
    throw treasuryChainErrors.treasury_broadcast_rejected({ message: `The TRON node refused ${tx.txid}: ${answer.code} ${answer.message}`.trim() });
  }

  async transaction(txid: string): Promise<TransactionState | null> {
    const info = await this.reads.transactionInfo(txid);
    if (info === undefined) return null;
    const head = await this.reads.nowBlock();
    const confirmations = head.height >= info.blockNumber ? Number(head.height - info.blockNumber) + 1 : 1;
    // A contract call that ran out of energy or reverted is in a block all the same: it moved nothing.
    const failed =
      info.result === 'FAILED' || (info.receiptResult !== undefined && info.receiptResult !== 'SUCCESS') ? (info.receiptResult ?? 'FAILED') : undefined;
    return { txid: info.id, confirmations, blockHeight: Number(info.blockNumber), blockHash: null, feeUnits: info.fee, ...(failed ? { failed } : {}) };
  }

  private checkAddress(address: string, code: 'validation_error' | 'treasury_wrong_network'): void {
    if (isTronAddress(address)) return;
    if (code === 'validation_error') throw chainErrors.validation_error({ message: `${address} is not a TRON address.` });
    throw treasuryChainErrors.treasury_wrong_network({ message: `${address} is not a TRON address.` });
  }

  private checkOperator(account: OperatorAccount): void {
    if (!isTronAddress(account.address))
      throw chainErrors.validation_error({ message: `The ${account.role} account ${account.address} is not a TRON address.` });
  }

  private requestedMethods(request: AccountSweepRequest): readonly AccountSweepMethod[] {
    const methods = this.methods(request.coin);
    if (methods.length === 0) throw chainErrors.validation_error({ message: `TRON ${this.network.id} has no coin ${request.coin}.` });
    if (request.method === undefined) return methods;
    if (!methods.includes(request.method))
      throw treasuryChainErrors.treasury_method_unavailable({ message: `TRON cannot move ${request.coin} by ${request.method}.` });
    return [request.method];
  }

  /** The path of a source's key, checked to give its address. */
  private pathOf(source: AccountSource): string {
    if (source.key.chain !== this.definition.id) throw chainErrors.validation_error({ message: `${source.address}: the key is not a TRON key.` });
    const derived = deriveTronAddress(source.key.canonical, source.index);
    if (derived.address !== source.address)
      throw chainErrors.validation_error({ message: `${source.address} is not receive index ${source.index} of its key.` });
    return derived.path;
  }

  private async operatorState(account: OperatorAccount | undefined): Promise<OperatorState | undefined> {
    if (account === undefined) return undefined;
    this.checkOperator(account);
    const [onChain, resource] = await Promise.all([this.reads.account(account.address), this.reads.resource(account.address)]);
    return {
      account,
      onChain,
      bandwidthLeft: onChain === undefined ? undefined : resource.bandwidthLeft,
      totalEnergyLimit: resource.totalEnergyLimit,
      totalEnergyWeight: resource.totalEnergyWeight,
    };
  }

  private async readSweepState(request: AccountSweepRequest): Promise<SweepState> {
    this.checkAddress(request.destination, 'treasury_wrong_network');
    if (request.sources.length === 0) throw chainErrors.validation_error({ message: 'A plan needs at least one source.' });
    const seen = new Set<string>();
    const sources = request.sources.filter((s) => (seen.has(s.address) ? false : (seen.add(s.address), true)));
    if (seen.has(request.destination)) throw chainErrors.validation_error({ message: 'The destination is one of the sources.' });
    const paths = sources.map((s) => this.pathOf(s));
    const token = this.tokens.get(request.coin);
    const decimals = token?.coin.decimals ?? this.definition.coins.find((c) => c.id === this.nativeCoin)!.decimals;
    const [block, prices, destination, funding, staking] = await Promise.all([
      this.reads.nowBlock(),
      this.reads.prices(),
      this.reads.account(request.destination),
      this.operatorState(request.operatorAccounts.funding),
      this.operatorState(request.operatorAccounts.staking),
    ]);
    const states = await mapLimit(sources, async (source, i): Promise<SourceState> => {
      const account = await this.reads.account(source.address);
      const bandwidthLeft = account === undefined ? undefined : (await this.reads.resource(source.address)).bandwidthLeft;
      const units = token === undefined ? (account?.balance ?? 0n) : await this.reads.tokenBalance(source.address, token.contract);
      const simulation =
        token !== undefined && units > 0n && units >= (request.minUnits ?? 0n)
          ? await this.reads.simulateTransfer(source.address, token.contract, request.destination, units)
          : undefined;
      return { source, path: paths[i]!, account, bandwidthLeft, units, simulation };
    });
    return {
      coin: request.coin,
      contract: token?.contract,
      decimals,
      destination: request.destination,
      destinationExists: destination !== undefined,
      block,
      prices,
      sources: states,
      minUnits: request.minUnits ?? 0n,
      funding,
      staking,
    };
  }

  /** `pricing`: the chain's prices and a current reference block (a transfer's size, hence its bandwidth, depends on it). */
  private async holdingsOf(address: string, pricing: { readonly prices: ChainPrices; readonly ref: ReferenceBlock } | undefined): Promise<AddressHoldings> {
    const account = await this.reads.account(address);
    const native = account?.balance ?? 0n;
    const balances: Record<string, bigint> = { [this.nativeCoin]: native };
    const tokens: TokenMoveCost[] = [];
    const bandwidthLeft = account === undefined ? undefined : (await this.reads.resource(address)).bandwidthLeft;
    for (const [coin, { contract }] of this.tokens) {
      const units = await this.reads.tokenBalance(address, contract);
      balances[coin] = units;
      if (units === 0n || pricing === undefined) continue;
      const { prices, ref } = pricing;
      // A transfer to the address itself: the cost of sending to a holder of the token (a fresh recipient costs more, as `quote` shows).
      const simulation = await this.reads.simulateTransfer(address, contract, address, units);
      const probe = trc20Transfer(address, contract, address, units, feeLimitFor(simulation.energyUsed, prices), ref);
      const moveCost = energyCost(simulation.energyUsed, prices) + bandwidthCost(bandwidthBytes(probe.raw_data_hex), bandwidthLeft, prices);
      tokens.push({ coin, moveCostUnits: moveCost, gasLackingUnits: moveCost > native ? moveCost - native : 0n, dust: false });
    }
    return { address, balances, nonce: 0n, tokens };
  }
}
