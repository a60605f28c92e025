import { coin, ORDINARY_CAPABILITIES, PRICE_ASSETS, publicProviderAt, type ChainDefinition } from '@gw/chain-api';

/** TronGrid (TRON DAO's full-node HTTP API) without a key. */
const trongrid = publicProviderAt({
  name: 'trongrid',
  operator: 'tron-dao',
  limit: { requestsPerSecond: 3 },
  source:
    'https://developers.tron.network/reference/rate-limits: without an API key TronGrid limits the rate dynamically and blocks an address for 30 s when it is exceeded (no figure published; keyed: 100,000 requests/day at 15-20 requests/s); 3 requests/s chosen as a conservative figure',
});

/**
 * TRON: plain data. Shasta is the default testnet (first); Nile is the second. Both use the same
 * T-address format. Sources: docs/chains-sources.md.
 */
export const tronDefinition: ChainDefinition = {
  id: 'tron',
  name: 'TRON',
  verificationStandard: 'bip44',
  networks: {
    // Keyless java-tron HTTP APIs (issue 40): two operators on mainnet (quorum 2), TronGrid alone on the testnets.
    mainnet: {
      id: 'tron',
      name: 'TRON mainnet',
      kind: 'mainnet',
      publicProviders: [
        trongrid('https://api.trongrid.io'),
        {
          name: 'publicnode',
          operator: 'allnodes',
          url: 'https://tron-rpc.publicnode.com',
          limit: { requestsPerSecond: 5 },
          // One limit for every chain PublicNode serves, as for its EVM endpoints (@gw/chain-evm public-rpc.ts).
          limitScope: 'publicnode.com',
          source:
            'https://www.publicnode.com (Allnodes; free, no key; serves /wallet and /walletsolidity): no published request limit found; 5 requests/s chosen as a conservative figure',
        },
      ],
    },
    testnets: [
      { id: 'shasta', name: 'TRON Shasta testnet', kind: 'testnet', publicProviders: [trongrid('https://api.shasta.trongrid.io')] },
      { id: 'nile', name: 'TRON Nile testnet', kind: 'testnet', publicProviders: [trongrid('https://nile.trongrid.io')] },
    ],
  },
  coins: [
    coin({
      id: 'trx',
      price: { symbol: 'TRX', providers: { coingecko: 'tron', kraken: ['TRXUSD'] } },
      decimals: 6,
      source: 'https://developers.tron.network/docs/trx (1 TRX = 1,000,000 sun)',
    }),
    coin({
      id: 'usdt_trc20',
      price: PRICE_ASSETS.USDT,
      decimals: 6,
      // Tether publishes no Shasta/Nile deployment; community test tokens are not listed.
      // Synthetic, sandbox only: see CoinDefinition.sandboxContract.
      sandboxContract: 'TYk6DWXyHmCBHTirh8xGzZcn5UPSBwNjco',
      contracts: { tron: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
      source: 'https://tether.to/en/supported-protocols/ ; https://tronscan.org/#/token20/TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t (decimals 6)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    trx: 10_000n, // 0.01 TRX
    usdt_trc20: 10_000n, // 0.01 USDT
  },
  // The watcher's default poll interval follows it (capped at 30 s): one block every 3 s.
  blockTimeSeconds: 3,
  // 19 blocks (~57 s): a block is irreversible once 2/3+1 of the 27 super representatives (19)
  // have built on it (TRON "solidified" block).
  defaultConfirmations: 19,
  capabilities: {
    ...ORDINARY_CAPABILITIES,
    // A new TRON account must be activated (receive TRX, ~1 TRX fee burned) before TRC-20 transfers
    // to it are cheap; plugins top up fresh addresses before handing them out for USDT.
    requiresActivation: true,
    // TronTreasury (src/treasury): balances, activation plans, TRX and TRC-20 sweeps signed offline.
    accountTreasury: true,
  },
  accountPath: { mainnet: "m/44'/195'/0'", testnet: "m/44'/195'/0'" },
};
