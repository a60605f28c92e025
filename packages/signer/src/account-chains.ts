import { refuse } from './signer-error.js';

/**
 * The account chains whose plans the signer signs (issue 36): EVM chains, TRON, TON and Solana, with what it
 * needs to check a plan offline. The values are the chain packages' (chains/eth, polygon, bsc, base,
 * tron, ton definitions; `account-chains.test.ts` compares them), kept here so that the signer
 * depends on no chain package.
 */
export type AccountFamily = 'evm' | 'tron' | 'ton' | 'sol';

export interface AccountChain {
  readonly id: string;
  readonly name: string;
  readonly family: AccountFamily;
  /** The native coin: its id, symbol, base unit and decimals. */
  readonly native: { readonly id: string; readonly symbol: string; readonly unit: string; readonly decimals: number };
  /** Known networks: kind, and the EIP-155 chain id (EVM) or the V5R1 global id (TON). */
  readonly networks: Readonly<Record<string, { readonly kind: 'mainnet' | 'testnet'; readonly evmChainId?: number; readonly tonGlobalId?: number }>>;
  /**
   * The listed tokens: coin id → network → the token contract (EVM, TRON) or jetton master (TON).
   * A plan's token transfer must go through its coin's contract here; a coin or network not listed
   * (an operator-configured test token) is signed only with `--allow-unlisted-token <contract>`.
   */
  readonly tokens: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

const evm = (id: string, name: string, native: AccountChain['native'], networks: AccountChain['networks'], tokens: AccountChain['tokens']): AccountChain => ({
  id,
  name,
  family: 'evm',
  native,
  networks,
  tokens,
});
const wei = (id: string, symbol: string) => ({ id, symbol, unit: 'wei', decimals: 18 });

export const ACCOUNT_CHAINS: Readonly<Record<string, AccountChain>> = {
  eth: evm(
    'eth',
    'Ethereum',
    wei('eth', 'ETH'),
    {
      ethereum: { kind: 'mainnet', evmChainId: 1 },
      sepolia: { kind: 'testnet', evmChainId: 11155111 },
    },
    {
      usdt_erc20: { ethereum: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
      usdc_erc20: { ethereum: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', sepolia: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' },
    },
  ),
  polygon: evm(
    'polygon',
    'Polygon',
    wei('pol', 'POL'),
    {
      polygon: { kind: 'mainnet', evmChainId: 137 },
      amoy: { kind: 'testnet', evmChainId: 80002 },
    },
    {
      usdt_polygon: { polygon: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
      usdc_polygon: { polygon: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', amoy: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582' },
    },
  ),
  bsc: evm(
    'bsc',
    'BNB Smart Chain',
    wei('bnb', 'BNB'),
    {
      bsc: { kind: 'mainnet', evmChainId: 56 },
      'bsc-testnet': { kind: 'testnet', evmChainId: 97 },
    },
    {
      usdt_bep20: { bsc: '0x55d398326f99059fF775485246999027B3197955' },
      usdc_bep20: { bsc: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d' },
    },
  ),
  base: evm(
    'base',
    'Base',
    wei('eth_base', 'ETH'),
    {
      base: { kind: 'mainnet', evmChainId: 8453 },
      'base-sepolia': { kind: 'testnet', evmChainId: 84532 },
    },
    {
      usdc_base: { base: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'base-sepolia': '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
    },
  ),
  tron: {
    id: 'tron',
    name: 'TRON',
    family: 'tron',
    native: { id: 'trx', symbol: 'TRX', unit: 'sun', decimals: 6 },
    networks: { tron: { kind: 'mainnet' }, shasta: { kind: 'testnet' }, nile: { kind: 'testnet' } },
    tokens: { usdt_trc20: { tron: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } },
  },
  ton: {
    id: 'ton',
    name: 'TON',
    family: 'ton',
    native: { id: 'ton', symbol: 'TON', unit: 'nanoton', decimals: 9 },
    networks: { ton: { kind: 'mainnet', tonGlobalId: -239 }, 'ton-testnet': { kind: 'testnet', tonGlobalId: -3 } },
    tokens: { usdt_ton: { ton: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs' } },
  },
  sol: {
    id: 'sol',
    name: 'Solana',
    family: 'sol',
    native: { id: 'sol', symbol: 'SOL', unit: 'lamports', decimals: 9 },
    // localnet: a local validator (the tests' litesvm ledger), whose USDC mint is Circle's devnet address.
    networks: { 'mainnet-beta': { kind: 'mainnet' }, devnet: { kind: 'testnet' }, localnet: { kind: 'testnet' } },
    tokens: {
      usdc_sol: {
        'mainnet-beta': 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        devnet: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
        localnet: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      },
      usdt_sol: { 'mainnet-beta': 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
    },
  },
};

/** Every EIP-155 chain id of a known network: a plan of an unknown network may not reuse one. */
const KNOWN_EVM_CHAIN_IDS = new Map(
  Object.values(ACCOUNT_CHAINS).flatMap((chain) =>
    Object.entries(chain.networks).flatMap(([network, n]) => (n.evmChainId === undefined ? [] : [[n.evmChainId, `${chain.id}/${network}`] as const])),
  ),
);

export function accountChainOf(id: string): AccountChain {
  const chain = ACCOUNT_CHAINS[id];
  if (!chain) refuse('plan_unreadable', `Unknown account chain "${id}"; the signer signs account plans of ${Object.keys(ACCOUNT_CHAINS).join(', ')}.`);
  return chain;
}

/**
 * Checks the plan's network and (EVM) chain id. A known network must carry its own chain id. An EVM
 * network the signer does not know (a local chain, a new testnet) is accepted with a note, but
 * never with the chain id of a known network: a plan cannot sign mainnet transactions under
 * another network's name. TRON and TON networks must be known (TON's wallet id binds the network).
 */
export function checkAccountNetwork(chain: AccountChain, network: string, evmChainId: number | null): { notes: string[]; tonGlobalId?: number } {
  const known = chain.networks[network];
  if (chain.family !== 'evm') {
    if (!known) refuse('wrong_network', `${chain.name} has no network "${network}"; known: ${Object.keys(chain.networks).join(', ')}.`);
    if (evmChainId !== null) refuse('plan_unreadable', `evm_chain_id must be null on ${chain.name}.`);
    return { notes: [], ...(known.tonGlobalId === undefined ? {} : { tonGlobalId: known.tonGlobalId }) };
  }
  if (typeof evmChainId !== 'number' || !Number.isSafeInteger(evmChainId) || evmChainId <= 0) {
    refuse('plan_unreadable', 'evm_chain_id must be the EIP-155 chain id of the plan (a positive integer).');
  }
  if (known) {
    if (known.evmChainId !== evmChainId) {
      refuse('wrong_network', `${chain.name} ${network} is chain id ${known.evmChainId}; the plan says ${evmChainId}.`);
    }
    return { notes: [] };
  }
  const owner = KNOWN_EVM_CHAIN_IDS.get(evmChainId);
  if (owner) refuse('wrong_network', `Chain id ${evmChainId} is ${owner}, not ${chain.id}/${network}.`);
  return { notes: [`${chain.name} network "${network}" is not one the signer knows; its transactions are signed for chain id ${evmChainId} only.`] };
}
