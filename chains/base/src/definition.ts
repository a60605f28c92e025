import { coin, PRICE_ASSETS, publicProviderAt, type ChainDefinition } from '@gw/chain-api';
import { evmChainDefinition, MULTICALL3_ADDRESS, publicnodeRpc, tenderlyRpc } from '@gw/chain-evm';

/** Base's own public endpoints (mainnet.base.org, sepolia.base.org), run by Coinbase, keyless. */
const baseOrgRpc = publicProviderAt({
  name: 'base.org',
  operator: 'coinbase',
  limit: { requestsPerSecond: 2 },
  source:
    'https://docs.base.org/base-chain/network-information and github.com/base/base-skills ("Public RPC endpoints are rate-limited - not for production"; no figure published): 2 requests/s chosen as a conservative figure',
});

/**
 * Base (Coinbase's OP Stack rollup): plain data, served by the shared EVM adapter.
 *
 * Coin ids carry the chain (`eth_base`, `usdc_base`): `eth` is Ethereum's. ETH on Base is priced as
 * ETH, USDC as USDC, with the same rate provider ids as Ethereum's coins (`PRICE_ASSETS`).
 */
export const baseDefinition: ChainDefinition = evmChainDefinition({
  id: 'base',
  name: 'Base',
  networks: {
    // Chain ids: https://docs.base.org/base-chain/network-information (8453 mainnet, 84532 Sepolia).
    mainnet: {
      id: 'base',
      name: 'Base mainnet',
      kind: 'mainnet',
      evmChainId: 8453,
      eip7702: true,
      multicall3: MULTICALL3_ADDRESS,
      // Keyless public JSON-RPC (issue 40; limits and sources in @gw/chain-evm's public-rpc.ts and below).
      publicProviders: [
        publicnodeRpc('https://base-rpc.publicnode.com'),
        baseOrgRpc('https://mainnet.base.org'),
        tenderlyRpc('https://base.gateway.tenderly.co'),
      ],
    },
    testnets: [
      {
        id: 'base-sepolia',
        name: 'Base Sepolia',
        kind: 'testnet',
        evmChainId: 84532,
        eip7702: true,
        multicall3: MULTICALL3_ADDRESS,
        publicProviders: [
          publicnodeRpc('https://base-sepolia-rpc.publicnode.com'),
          baseOrgRpc('https://sepolia.base.org'),
          tenderlyRpc('https://base-sepolia.gateway.tenderly.co'),
        ],
      },
    ],
  },
  coins: [
    coin({
      id: 'eth_base',
      price: PRICE_ASSETS.ETH,
      decimals: 18,
      source: 'https://docs.base.org/base-chain/network-information (ETH is the native gas token; 18 decimals as on Ethereum)',
    }),
    coin({
      id: 'usdc_base',
      price: PRICE_ASSETS.USDC,
      decimals: 6,
      // Native (Circle-issued) USDC, not the bridged USDbC at 0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA.
      contracts: { base: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'base-sepolia': '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
      source:
        'https://developers.circle.com/stablecoins/usdc-contract-addresses (Base and Base Sepolia rows) ; https://basescan.org/token/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913 (decimals() = 6)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    eth_base: 1_000_000_000_000n, // 0.000001 ETH
    usdc_base: 10_000n, // 0.01 USDC
  },
  // The watcher's default poll interval follows it (capped at 30 s): one block every 2 s (OP Stack).
  blockTimeSeconds: 2,
  // 2-second blocks from one sequencer; a block is final once its batch is final on Ethereum
  // (~15-20 min). 30 blocks (~1 min) covers sequencer-level reorgs, which have been shallow;
  // operators wanting L1 finality set ~600 per project.
  defaultConfirmations: 30,
});
