import {
  chainErrors,
  treasuryChainErrors,
  type AccountSource,
  type AccountSweepRequest,
  type ChainDefinition,
  type NetworkDefinition,
  type OperatorAccount,
} from '@gw/chain-api';
import { getAddress, type TypedDataDomain } from 'ethers';
import { isEvmAddress } from '../adapter.js';
import { transferData } from './erc20.js';
import { quantity, toQuantity, type EvmRpc } from './evm-rpc.js';
import { readFeeMarket, type FeeMarket } from './fee-market.js';
import { probeEip3009 } from './eip3009-probe.js';
import { readAccounts, type AccountState } from './read-accounts.js';
import { TOKEN_SWEEPER_ABI } from './token-sweeper.js';

/** A source with what the treasury read of it. */
export type SourceState = AccountSource & AccountState;

/** Everything a plan of one request is built from: read once, then every method plans from it (pure). */
export interface SweepState {
  readonly network: NetworkDefinition;
  readonly accountPath: string;
  readonly nativeCoin: string;
  readonly nativeDecimals: number;
  readonly coin: string;
  readonly coinDecimals: number;
  /** The token contract; undefined when `coin` is the native coin. */
  readonly token?: string;
  readonly destination: string;
  readonly fees: FeeMarket;
  readonly sources: readonly SourceState[];
  /** The operator's gas account with its nonce and balance, where configured. */
  readonly gas?: { readonly account: OperatorAccount; readonly nonce: bigint; readonly native: bigint };
  /** Gas of a native transfer to the destination (21,000 to a plain account). */
  readonly nativeTransferGas: bigint;
  /** Gas limit of one token transfer to the destination: the node's estimate for one source, plus a fifth. */
  readonly tokenTransferGas: bigint;
  /** The token's EIP-712 domain when it implements EIP-3009, or why not. */
  readonly eip3009: { readonly domain: TypedDataDomain } | { readonly unavailable: string };
  /** Whether the request's sweeper contract is deployed and sends to the destination, or why not. */
  readonly sweeper: { readonly address: string } | { readonly unavailable: string };
  readonly minUnits: bigint;
  /** Seconds since the epoch when read (the validity window of EIP-3009 authorizations starts here). */
  readonly now: number;
}

/** Token transfer gas when no source holds any to estimate with (a typical ERC-20 transfer to a fresh holder). */
const DEFAULT_TOKEN_TRANSFER_GAS = 65_000n;

/** Checks the request's shape; throws `validation_error` / `treasury_wrong_network`. */
export function validateRequest(definition: ChainDefinition, network: NetworkDefinition, request: AccountSweepRequest): void {
  if (typeof request !== 'object' || request === null) throw chainErrors.validation_error({ message: 'A sweep request is an object.' });
  const coin = definition.coins.find((c) => c.id === request.coin);
  if (!coin) throw chainErrors.validation_error({ message: `${String(request.coin)} is not a coin of ${definition.id}.` });
  if (coin.contracts && !coin.contracts[network.id]) throw chainErrors.validation_error({ message: `${coin.id} has no contract on ${network.id}.` });
  if (typeof request.destination !== 'string' || !isEvmAddress(request.destination))
    throw treasuryChainErrors.treasury_wrong_network({ message: `The destination ${String(request.destination).slice(0, 80)} is not an EVM address.` });
  if (!Array.isArray(request.sources) || request.sources.length === 0)
    throw chainErrors.validation_error({ message: 'A sweep needs at least one source address.' });
  const seen = new Set<string>();
  for (const source of request.sources) {
    if (typeof source?.address !== 'string' || !isEvmAddress(source.address) || !Number.isInteger(source.index) || source.index < 0)
      throw chainErrors.validation_error({ message: `Source ${String(source?.address).slice(0, 80)} is not an EVM address with a receive index.` });
    const lower = source.address.toLowerCase();
    if (seen.has(lower)) throw chainErrors.validation_error({ message: `Source ${source.address} is listed twice.` });
    seen.add(lower);
  }
  if (request.minUnits !== undefined && (typeof request.minUnits !== 'bigint' || request.minUnits < 0n))
    throw chainErrors.validation_error({ message: 'minUnits must be a non-negative amount of base units.' });
  const gas = request.operatorAccounts?.gas;
  if (gas !== undefined && (typeof gas.address !== 'string' || !isEvmAddress(gas.address)))
    throw chainErrors.validation_error({ message: 'The gas account is not an EVM address.' });
}

/** Reads the chain state a request's plans are built from. */
export async function readSweepState(rpc: EvmRpc, definition: ChainDefinition, network: NetworkDefinition, request: AccountSweepRequest): Promise<SweepState> {
  validateRequest(definition, network, request);
  const native = definition.coins.find((c) => !c.contracts)!;
  const coin = definition.coins.find((c) => c.id === request.coin)!;
  const token = coin.contracts?.[network.id] ? getAddress(coin.contracts[network.id]!) : undefined;
  const destination = getAddress(request.destination);
  const gasAccount = request.operatorAccounts?.gas;
  const addresses = request.sources.map((s) => getAddress(s.address));
  const [fees, accounts, gasState] = await Promise.all([
    readFeeMarket(rpc),
    readAccounts(rpc, addresses, token ? [token] : [], { multicall3: network.multicall3, withCode: true }),
    gasAccount ? readAccounts(rpc, [getAddress(gasAccount.address)], [], { multicall3: network.multicall3 }) : Promise.resolve([]),
  ]);
  const sources = request.sources.map((source, i) => ({ ...source, ...accounts[i]! }));
  const holder = token ? sources.find((s) => (s.tokens.get(token.toLowerCase()) ?? 0n) > 0n) : undefined;
  const estimates = await rpc.batch('estimate', [
    ['eth_estimateGas', [{ from: addresses[0], to: destination, value: toQuantity(1n) }]],
    ...(holder
      ? [
          ['eth_estimateGas', [{ from: holder.address, to: token, data: transferData(destination, holder.tokens.get(token!.toLowerCase())!) }]] as [
            string,
            unknown[],
          ],
        ]
      : []),
  ]);
  const nativeTransferGas = quantity(estimates[0], 'eth_estimateGas');
  const tokenTransferGas = holder ? (quantity(estimates[1], 'eth_estimateGas') * 6n) / 5n : DEFAULT_TOKEN_TRANSFER_GAS;
  const [eip3009, sweeper] = await Promise.all([
    token ? probeEip3009(rpc, token, fees.chainId) : Promise.resolve({ unavailable: `${coin.id} is the native coin` }),
    readSweeper(rpc, request.sweeperContract, destination),
  ]);
  return {
    network,
    accountPath: definition.accountPath[network.kind === 'mainnet' ? 'mainnet' : 'testnet'],
    nativeCoin: native.id,
    nativeDecimals: native.decimals,
    coin: coin.id,
    coinDecimals: coin.decimals,
    ...(token ? { token } : {}),
    destination,
    fees,
    sources,
    ...(gasAccount && gasState[0] ? { gas: { account: gasAccount, nonce: gasState[0].nonce, native: gasState[0].native } } : {}),
    nativeTransferGas: nativeTransferGas > 21_000n ? (nativeTransferGas * 6n) / 5n : nativeTransferGas,
    tokenTransferGas,
    eip3009,
    sweeper,
    minUnits: request.minUnits ?? 0n,
    now: Math.floor(Date.now() / 1000),
  };
}

/** The sweeper contract must exist and send to this destination: a sweeper of another destination is never used. */
async function readSweeper(rpc: EvmRpc, contract: string | undefined, destination: string): Promise<SweepState['sweeper']> {
  if (contract === undefined) return { unavailable: 'no sweeper contract is deployed for this destination' };
  if (!isEvmAddress(contract)) throw chainErrors.validation_error({ message: 'The sweeper contract is not an EVM address.' });
  const [answer] = await rpc.batch('sweeper', [['eth_call', [{ to: contract, data: TOKEN_SWEEPER_ABI.encodeFunctionData('destination') }, 'latest']]], true);
  if (typeof answer?.result !== 'string' || answer.result.length !== 66) return { unavailable: `${contract} is not a sweeper contract` };
  const [fixed] = TOKEN_SWEEPER_ABI.decodeFunctionResult('destination', answer.result as string) as unknown as [string];
  if (getAddress(fixed) !== destination) return { unavailable: `the sweeper ${contract} sends to ${fixed}, not to ${destination}` };
  return { address: getAddress(contract) };
}

/** The token units a source holds of the request's coin (native balance for the native coin). */
export function unitsOf(state: SweepState, source: SourceState): bigint {
  return state.token ? (source.tokens.get(state.token.toLowerCase()) ?? 0n) : source.native;
}

/** The gas account, or `treasury_operator_account_missing`. */
export function requireGas(state: SweepState, method: string): NonNullable<SweepState['gas']> {
  if (!state.gas)
    throw treasuryChainErrors.treasury_operator_account_missing({ message: `The ${method} method needs the operator's gas account for ${state.network.id}.` });
  return state.gas;
}
