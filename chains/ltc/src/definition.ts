import { coin, ORDINARY_CAPABILITIES, publicProviderAt, type ChainDefinition } from '@gw/chain-api';

/** Litecoin Space (the Litecoin Foundation's mempool.space fork), its Esplora API. */
const litecoinspace = publicProviderAt({
  name: 'litecoinspace.org',
  operator: 'litecoin-foundation',
  kind: 'esplora',
  limit: { requestsPerSecond: 2 },
  source:
    'https://litecoinspace.org/docs/api/rest (github.com/litecoin-foundation/ltcspace): no published request limit; 2 requests/s chosen as a conservative figure',
});

/**
 * Litecoin: plain data, served by the BTC adapter with {@link litecoinParams}.
 *
 * Testnets: `testnet` (testnet4, `tltc1…`) is the default; `regtest` (`rltc1…`, litecoind
 * `-regtest`) is for local nodes and tests: testnet projects use it when config
 * `chains.testNetworks.ltc` says `regtest`. Both take the same keys (ttub/tpub/vpub).
 */
export const ltcDefinition: ChainDefinition = {
  id: 'ltc',
  name: 'Litecoin',
  verificationStandard: 'bip84',
  networks: {
    // One public Esplora (issue 40): the default quorum is 1.
    mainnet: { id: 'litecoin', name: 'Litecoin mainnet', kind: 'mainnet', publicProviders: [litecoinspace('https://litecoinspace.org/api')] },
    testnets: [
      { id: 'testnet', name: 'Litecoin testnet4', kind: 'testnet', publicProviders: [litecoinspace('https://litecoinspace.org/testnet/api')] },
      { id: 'regtest', name: 'Litecoin regtest', kind: 'testnet' },
    ],
  },
  coins: [
    coin({
      id: 'ltc',
      price: { symbol: 'LTC', providers: { coingecko: 'litecoin', kraken: ['LTCUSD', 'XLTCZUSD'] } },
      decimals: 8,
      source: 'Litecoin Core: 1 LTC = 100,000,000 litoshi (COIN in src/consensus/amount.h)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    ltc: 546n, // 546 litoshi, the Bitcoin-derived dust limit
  },
  // The watcher's default poll interval follows it (capped at 30 s): a block every 2.5 minutes on average.
  blockTimeSeconds: 150,
  // Blocks come every 2.5 minutes: 6 confirmations (~15 min) is the usual exchange figure and about
  // the wall-clock depth of Bitcoin's 2.
  defaultConfirmations: 6,
  // Bitcoin's consensus rule, unchanged in Litecoin: above the median of the last 11 blocks, at most two hours ahead.
  blockTimeSkewSeconds: 7200,
  // PSBTs over the pool's P2WPKH outputs (src/treasury of @gw/chain-btc; issue 35).
  capabilities: { ...ORDINARY_CAPABILITIES, treasury: true },
  accountPath: { mainnet: "m/84'/2'/0'", testnet: "m/84'/1'/0'" },
};
