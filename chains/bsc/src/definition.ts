import { coin, PRICE_ASSETS, type ChainDefinition } from '@gw/chain-api';
import { evmChainDefinition, llamarpcRpc, MULTICALL3_ADDRESS, publicnodeRpc } from '@gw/chain-evm';

/** BNB Smart Chain: plain data, served by the shared EVM adapter. Sources: docs/chains-sources.md. */
export const bscDefinition: ChainDefinition = evmChainDefinition({
  id: 'bsc',
  name: 'BNB Smart Chain',
  networks: {
    mainnet: {
      id: 'bsc',
      name: 'BNB Smart Chain mainnet',
      kind: 'mainnet',
      evmChainId: 56,
      eip7702: true,
      multicall3: MULTICALL3_ADDRESS,
      // Keyless public JSON-RPC (issue 40; limits and sources in @gw/chain-evm's public-rpc.ts). BNB
      // Chain's own mainnet endpoints are left out: they disable eth_getLogs, which token transfers need.
      publicProviders: [publicnodeRpc('https://bsc-rpc.publicnode.com'), llamarpcRpc('https://binance.llamarpc.com')],
    },
    testnets: [
      {
        id: 'bsc-testnet',
        name: 'BNB Smart Chain testnet (Chapel)',
        kind: 'testnet',
        evmChainId: 97,
        eip7702: true,
        multicall3: MULTICALL3_ADDRESS,
        publicProviders: [
          publicnodeRpc('https://bsc-testnet-rpc.publicnode.com'),
          {
            name: 'bnbchain',
            operator: 'bnb-chain',
            url: 'https://bsc-testnet-dataseed.bnbchain.org',
            limit: { requestsPerSecond: 33 },
            source:
              'https://docs.bnbchain.org/bnb-smart-chain/developers/json_rpc/json-rpc-endpoint ("The rate limit of BSC endpoint on Testnet and Mainnet is 10K/5min": 33 requests/s)',
          },
        ],
      },
    ],
  },
  coins: [
    coin({
      id: 'bnb',
      price: { symbol: 'BNB', providers: { coingecko: 'binancecoin' } },
      decimals: 18,
      source: 'https://docs.bnbchain.org/ (BNB is the 18-decimal native gas token of BSC)',
    }),
    // Binance-Peg USDT and USDC use 18 decimals, unlike USDT on Ethereum/TRON (6). No official testnet
    // token of either (Circle lists no BSC testnet USDC). Synthetic, sandbox only: see CoinDefinition.sandboxContract.
    coin({
      id: 'usdt_bep20',
      price: PRICE_ASSETS.USDT,
      decimals: 18,
      sandboxContract: '0xD88a246cAFe0FFED406FF189d3C92C97473E0188',
      contracts: { bsc: '0x55d398326f99059fF775485246999027B3197955' },
      source: 'https://bscscan.com/token/0x55d398326f99059ff775485246999027b3197955 (Binance-Peg BSC-USD, decimals() = 18)',
    }),
    coin({
      id: 'usdc_bep20',
      price: PRICE_ASSETS.USDC,
      decimals: 18,
      sandboxContract: '0x4F2E8C065b96264e0B5f82e5d29925F4e99A2b94',
      contracts: { bsc: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d' },
      source: 'https://bscscan.com/token/0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d (Binance-Peg USD Coin, decimals() = 18)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    bnb: 10_000_000_000_000n, // 0.00001 BNB
    usdt_bep20: 10_000_000_000_000_000n, // 0.01 USDT (18 decimals on BSC)
    usdc_bep20: 10_000_000_000_000_000n, // 0.01 USDC (18 decimals on BSC)
  },
  // The watcher's default poll interval follows it (capped at 30 s): 0.75 s per block since the Maxwell upgrade (2025).
  blockTimeSeconds: 0.75,
  // 15 blocks (~45 s at 3 s, less after the 2025 block-time cuts): the usual exchange figure; BSC
  // fast finality (BEP-126) normally finalises within 2-3 blocks.
  defaultConfirmations: 15,
});
