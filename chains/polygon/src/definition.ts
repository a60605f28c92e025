import { coin, PRICE_ASSETS, publicProviderAt, type ChainDefinition } from '@gw/chain-api';
import { evmChainDefinition, MULTICALL3_ADDRESS, publicnodeRpc, tenderlyRpc } from '@gw/chain-evm';

/** Polygon's own public endpoints (polygon-rpc.com, rpc-amoy.polygon.technology), keyless. */
const polygonLabsRpc = publicProviderAt({
  name: 'polygon-rpc',
  operator: 'polygon-labs',
  limit: { requestsPerSecond: 2 },
  source:
    'https://docs.polygon.technology/ (public endpoints; no request limit published: "Polygon does not publish its rate limits for public nodes", getblock.io/blog/public-polygon-rpc-url-deep-dive): 2 requests/s chosen as a conservative figure',
});

/** Polygon PoS: plain data, served by the shared EVM adapter. Sources: docs/chains-sources.md. */
export const polygonDefinition: ChainDefinition = evmChainDefinition({
  id: 'polygon',
  name: 'Polygon PoS',
  networks: {
    mainnet: {
      id: 'polygon',
      name: 'Polygon PoS mainnet',
      kind: 'mainnet',
      evmChainId: 137,
      multicall3: MULTICALL3_ADDRESS,
      // Keyless public JSON-RPC (issue 40; limits and sources in @gw/chain-evm's public-rpc.ts and below).
      publicProviders: [
        publicnodeRpc('https://polygon-bor-rpc.publicnode.com'),
        polygonLabsRpc('https://polygon-rpc.com'),
        tenderlyRpc('https://polygon.gateway.tenderly.co'),
      ],
    },
    testnets: [
      {
        id: 'amoy',
        name: 'Polygon Amoy',
        kind: 'testnet',
        evmChainId: 80002,
        multicall3: MULTICALL3_ADDRESS,
        publicProviders: [
          publicnodeRpc('https://polygon-amoy-bor-rpc.publicnode.com'),
          polygonLabsRpc('https://rpc-amoy.polygon.technology'),
          tenderlyRpc('https://polygon-amoy.gateway.tenderly.co'),
        ],
      },
    ],
  },
  coins: [
    coin({
      id: 'pol',
      price: { symbol: 'POL', providers: { coingecko: 'polygon-ecosystem-token', kraken: ['POLUSD'] } },
      decimals: 18,
      source: 'https://docs.polygon.technology/ (POL replaced MATIC as the native gas token on 2024-09-04; native coin, 18 decimals)',
    }),
    coin({
      id: 'usdt_polygon',
      price: PRICE_ASSETS.USDT,
      decimals: 6,
      // No official Tether deployment on Amoy.
      // Synthetic, sandbox only: see CoinDefinition.sandboxContract.
      sandboxContract: '0x60eF684093cf05d0F3f9Befe17F6ffe03BaA81a7',
      contracts: { polygon: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
      source: 'https://tether.to/en/supported-protocols/ ; https://polygonscan.com/token/0xc2132d05d31c914a87c6611c10748aeb04b58e8f (decimals() = 6)',
    }),
    coin({
      id: 'usdc_polygon',
      price: PRICE_ASSETS.USDC,
      decimals: 6,
      // Native (Circle-issued) USDC, not the bridged USDC.e at 0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174.
      contracts: { polygon: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', amoy: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582' },
      source: 'https://developers.circle.com/stablecoins/usdc-contract-addresses (mainnet and testnet tables; decimals 6)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    pol: 10_000_000_000_000_000n, // 0.01 POL
    usdt_polygon: 10_000n, // 0.01 USDT
    usdc_polygon: 10_000n, // 0.01 USDC
  },
  // The watcher's default poll interval follows it (capped at 30 s): about 2 s per block.
  blockTimeSeconds: 2,
  // 128 blocks (~4.5 min at 2 s): Polygon PoS saw reorgs deeper than 100 blocks before its 2025
  // fast-finality upgrade (Heimdall v2); exchanges historically required 128-256 confirmations.
  defaultConfirmations: 128,
});
