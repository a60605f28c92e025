import {
  chainErrors,
  treasuryChainErrors,
  type AccountPayoutRequest,
  type AccountPlanBuild,
  type AccountStep,
  type AccountSweepMethod,
  type AccountSweepRequest,
  type AccountTreasury,
  type AddressHoldings,
  type AuthorizedTransfers,
  type ChainDefinition,
  type NetworkDefinition,
  type SweepQuote,
  type SweeperDeploymentRequest,
  type TransactionState,
  type VerifiedStep,
  type VerifiedTransaction,
  type WatcherOptions,
} from '@gw/chain-api';
import { getAddress, Transaction } from 'ethers';
import { isEvmAddress } from '../adapter.js';
import { EvmAuthorizedTransfers } from './authorized-transfers.js';
import { quantity, EvmRpc } from './evm-rpc.js';
import { readFeeMarket } from './fee-market.js';
import { continueEip3009, planEip3009 } from './plan-eip3009.js';
import { continueEip7702, planEip7702 } from './plan-eip7702.js';
import { planGasTopUp } from './plan-gas-top-up.js';
import { checkEvmFresh } from './plan-freshness.js';
import { planNative } from './plan-native.js';
import { planEvmPayout } from './plan-payout.js';
import { sweeperDeploymentPlan } from './sweeper-deployment.js';
import { isTokenSweeperCode } from './token-sweeper.js';
import { readAccounts } from './read-accounts.js';
import { readSweepState, type SweepState } from './sweep-state.js';
import { sweptNothing } from './sweep-receipt.js';
import { sendRawTransaction } from './send-raw-transaction.js';
import { verifyEvmStep } from './verify-step.js';

/** Gas of one token transfer in `holdings` (no destination to estimate against): a typical ERC-20 transfer to an existing holder, plus margin. */
const HOLDINGS_TOKEN_TRANSFER_GAS = 65_000n;

const PLANNERS: Record<'native' | 'gas_top_up' | 'eip7702' | 'eip3009', (state: SweepState) => AccountPlanBuild> = {
  native: planNative,
  gas_top_up: planGasTopUp,
  eip7702: planEip7702,
  eip3009: planEip3009,
};

/**
 * The account treasury of one EVM network (eth, polygon, bsc, base): balances read through
 * Multicall3 where deployed, and sweeps by the native, gas top-up, EIP-7702 sweeper and EIP-3009
 * methods, every step signed offline. See docs/treasury.md, "EVM chains".
 */
export class EvmAccountTreasury implements AccountTreasury {
  readonly network: NetworkDefinition;
  readonly nativeCoin: string;
  readonly authorizedTransfers: AuthorizedTransfers;
  private readonly rpc: EvmRpc;

  constructor(
    private readonly definition: ChainDefinition,
    options: WatcherOptions,
  ) {
    this.network = options.network;
    this.nativeCoin = definition.coins.find((c) => !c.contracts)!.id;
    this.rpc = new EvmRpc(options.providers, options.network);
    this.authorizedTransfers = new EvmAuthorizedTransfers(this.rpc, definition, options.network);
  }

  private get tokens(): { coin: string; contract: string }[] {
    return this.definition.coins
      .filter((c) => c.contracts?.[this.network.id])
      .map((c) => ({ coin: c.id, contract: getAddress(c.contracts![this.network.id]!) }));
  }

  async holdings(addresses: readonly string[]): Promise<Map<string, AddressHoldings>> {
    for (const address of addresses)
      if (!isEvmAddress(address)) throw chainErrors.validation_error({ message: `${String(address).slice(0, 80)} is not an EVM address.` });
    if (addresses.length === 0) return new Map();
    const tokens = this.tokens;
    const [fees, accounts] = await Promise.all([
      readFeeMarket(this.rpc),
      readAccounts(
        this.rpc,
        addresses.map((a) => getAddress(a)),
        tokens.map((t) => t.contract),
        { multicall3: this.network.multicall3 },
      ),
    ]);
    const moveCost = HOLDINGS_TOKEN_TRANSFER_GAS * fees.maxFeePerGas;
    return new Map(
      accounts.map((account, i) => {
        const balances: Record<string, bigint> = { [this.nativeCoin]: account.native };
        for (const token of tokens) balances[token.coin] = account.tokens.get(token.contract.toLowerCase()) ?? 0n;
        return [
          addresses[i]!,
          {
            address: addresses[i]!,
            balances,
            nonce: account.nonce,
            tokens: tokens
              .filter((token) => balances[token.coin]! > 0n)
              .map((token) => ({
                coin: token.coin,
                moveCostUnits: moveCost,
                gasLackingUnits: moveCost > account.native ? moveCost - account.native : 0n,
                dust: balances[token.coin]! === 0n,
              })),
          },
        ];
      }),
    );
  }

  methods(coin: string): readonly AccountSweepMethod[] {
    const definition = this.definition.coins.find((c) => c.id === coin);
    if (!definition) throw chainErrors.validation_error({ message: `${String(coin)} is not a coin of ${this.definition.id}.` });
    if (!definition.contracts) return ['native'];
    // Gas per token moved on anvil (docs/performance.md, "Issue 36, EVM sweeps"): the sweeper, then
    // 3009 (when the token has it: build and quote probe it), then the top-up.
    return [...(this.network.eip7702 ? (['eip7702'] as const) : []), 'eip3009', 'gas_top_up'];
  }

  async quote(request: AccountSweepRequest): Promise<SweepQuote[]> {
    const state = await readSweepState(this.rpc, this.definition, this.network, request);
    const methods = request.method ? [request.method] : this.methods(request.coin);
    return methods.map((method) => {
      const planner = PLANNERS[method as keyof typeof PLANNERS];
      if (!planner) return unavailable(method, `${method} is not an EVM method`);
      try {
        const plan = planner(state);
        return {
          method,
          available: true,
          sources: state.sources.length - plan.skipped.length,
          movedUnits: plan.movedUnits,
          feeUnits: plan.feeUnits,
          operatorPaysUnits: plan.operatorPaysUnits,
          steps: plan.steps.length + (plan.rounds === 2 ? Number(plan.context['submissions'] ?? 0) : 0),
          rounds: plan.rounds,
        };
      } catch (error) {
        return unavailable(method, (error as Error).message);
      }
    });
  }

  async build(request: AccountSweepRequest): Promise<AccountPlanBuild> {
    const state = await readSweepState(this.rpc, this.definition, this.network, request);
    const method = request.method ?? this.cheapest(state);
    const planner = PLANNERS[method as keyof typeof PLANNERS];
    if (!planner) throw treasuryChainErrors.treasury_method_unavailable({ message: `${method} is not a sweep method of EVM chains.` });
    if (method !== 'native' && !state.token)
      throw treasuryChainErrors.treasury_method_unavailable({ message: `${state.coin} is the native coin: it moves by native.` });
    if (method === 'native' && state.token)
      throw treasuryChainErrors.treasury_method_unavailable({ message: `${state.coin} is a token: native moves ${this.nativeCoin} only.` });
    return planner(state);
  }

  async isSweeperFor(contract: string, destination: string): Promise<boolean> {
    if (!isEvmAddress(contract) || !isEvmAddress(destination)) return false;
    const code = await this.rpc.call<unknown>('sweeper code', 'eth_getCode', [getAddress(contract), 'latest']);
    return typeof code === 'string' && isTokenSweeperCode(code, destination);
  }

  async buildSweeperDeployment(request: SweeperDeploymentRequest): Promise<AccountPlanBuild> {
    if (!isEvmAddress(request.destination))
      throw chainErrors.validation_error({ message: `${String(request.destination).slice(0, 80)} is not an EVM address.` });
    if (!this.network.eip7702)
      throw treasuryChainErrors.treasury_method_unavailable({ message: `EIP-7702 is not active on ${this.network.id}: a sweeper would be of no use.` });
    const gas = request.operatorAccounts.gas;
    if (!gas)
      throw treasuryChainErrors.treasury_operator_account_missing({
        message: `The sweeper is deployed from the gas account; configure one for ${this.network.id}.`,
      });
    const [fees, [nonce]] = await Promise.all([
      readFeeMarket(this.rpc),
      this.rpc.batch('nonces', [['eth_getTransactionCount', [getAddress(gas.address), 'pending']]]),
    ]);
    return sweeperDeploymentPlan({
      fees,
      gas,
      nonce: quantity(nonce, 'eth_getTransactionCount'),
      destination: request.destination,
      nativeCoin: this.nativeCoin,
    });
  }

  buildPayout(request: AccountPayoutRequest): Promise<AccountPlanBuild> {
    return planEvmPayout(this.rpc, this.definition, this.network, request);
  }

  /** The first method of `methods` that plans without error (the order is cheapest first). */
  private cheapest(state: SweepState): AccountSweepMethod {
    const methods = this.methods(state.coin);
    for (const method of methods.slice(0, -1)) {
      try {
        PLANNERS[method as keyof typeof PLANNERS](state);
        return method;
      } catch {
        // not applicable here; try the next
      }
    }
    return methods[methods.length - 1]!;
  }

  continue(build: AccountPlanBuild, signed: readonly VerifiedStep[]): AccountStep[] {
    if (build.rounds === 1) return [];
    if (build.method === 'eip7702') return continueEip7702(build, signed);
    if (build.method === 'eip3009') return continueEip3009(build, signed);
    return [];
  }

  verifySigned(step: AccountStep, signed: string): VerifiedStep {
    return verifyEvmStep(step, signed);
  }

  checkFresh(steps: readonly AccountStep[], txids?: ReadonlyMap<string, string>): Promise<void> {
    return checkEvmFresh(this.rpc, steps, txids);
  }

  async broadcast(tx: VerifiedTransaction): Promise<string> {
    const parsed = Transaction.from(tx.hex);
    if (parsed.hash !== tx.txid) throw chainErrors.validation_error({ message: `The transaction hashes to ${parsed.hash}, not ${tx.txid}.` });
    return sendRawTransaction(this.rpc, tx.hex, tx.txid);
  }

  async transaction(txid: string): Promise<TransactionState | null> {
    if (typeof txid !== 'string' || !/^0x[0-9a-f]{64}$/.test(txid))
      throw chainErrors.validation_error({ message: `Not a transaction hash (0x and 64 lower-case hex digits): ${String(txid).slice(0, 80)}.` });
    const [known, receipt, head] = await this.rpc.batch('transaction', [
      ['eth_getTransactionByHash', [txid]],
      ['eth_getTransactionReceipt', [txid]],
      ['eth_blockNumber', []],
    ]);
    if (known!.result === null || known!.result === undefined) return null;
    const mined = receipt!.result as {
      blockNumber?: string;
      blockHash?: string;
      gasUsed?: string;
      effectiveGasPrice?: string;
      status?: string;
      logs?: { address?: string; topics?: string[] }[];
    } | null;
    if (!mined?.blockNumber) return { txid, confirmations: 0, blockHeight: null, blockHash: null };
    const height = Number(BigInt(mined.blockNumber));
    return {
      txid,
      confirmations: Number(quantity(head, 'eth_blockNumber')) - height + 1,
      blockHeight: height,
      blockHash: mined.blockHash ?? null,
      ...(mined.gasUsed && mined.effectiveGasPrice ? { feeUnits: BigInt(mined.gasUsed) * BigInt(mined.effectiveGasPrice) } : {}),
      ...(mined.status === '0x0' ? { failed: 'reverted' } : failedSweep(known!.result, mined.logs)),
    };
  }
}

/** A mined sweeper submission that moved nothing from an address it swept is failed too (sweep-receipt.ts). */
function failedSweep(tx: unknown, logs: readonly { address?: string; topics?: string[] }[] | undefined): { failed?: string } {
  const reason = sweptNothing(tx as { to?: string | null; input?: string }, logs ?? []);
  return reason ? { failed: reason } : {};
}

function unavailable(method: AccountSweepMethod, reason: string): SweepQuote {
  return { method, available: false, reason, sources: 0, movedUnits: 0n, feeUnits: 0n, operatorPaysUnits: 0n, steps: 0, rounds: 1 };
}

/** The adapter's `createAccountTreasury`. */
export function createEvmAccountTreasury(definition: ChainDefinition, options: WatcherOptions): AccountTreasury {
  return new EvmAccountTreasury(definition, options);
}
