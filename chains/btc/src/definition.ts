import { coin, ORDINARY_CAPABILITIES, publicProviderAt, type ChainDefinition } from '@gw/chain-api';

/** mempool.space's Esplora API. */
const mempoolSpace = publicProviderAt({
  name: 'mempool.space',
  operator: 'mempool-space',
  kind: 'esplora',
  limit: { requestsPerSecond: 2 },
  source:
    'https://mempool.space/docs/api/rest: limits are not published ("Our API limits aren\'t disclosed", github.com/mempool/mempool discussion 752); 2 requests/s chosen as a conservative figure',
});

/** blockstream.info's Esplora API. */
const blockstreamInfo = publicProviderAt({
  name: 'blockstream.info',
  operator: 'blockstream',
  kind: 'esplora',
  limit: { requestsPerSecond: 5 },
  source:
    "https://github.com/Blockstream/esplora/blob/master/API.md: no published figure for the public API; Esplora's deployment config (contrib/nginx.conf.in, as quoted by bitcoinerlab.com/docs/explorer) limits a client to 5 requests/s with a burst of 10",
});

/**
 * Bitcoin: plain data. Sources are listed per value and in docs/chains-sources.md.
 *
 * Testnets: signet is the default (first) testnet because testnet3 blocks are erratic and coins are
 * hard to get; testnet (testnet3/testnet4) is kept as the second entry. Both use the same address
 * format (`tb1...`) and key versions (`tpub`/`vpub`), so one testnet key works on either. regtest
 * (`bcrt1…`, a local `bitcoind -regtest` node) takes the same keys; testnet projects use it only
 * when config `chains.testNetworks.btc` says `regtest`.
 */
export const btcDefinition: ChainDefinition = {
  id: 'btc',
  name: 'Bitcoin',
  verificationStandard: 'bip84',
  networks: {
    // Public Esplora instances of two operators (issue 40): the default quorum is 2.
    mainnet: {
      id: 'bitcoin',
      name: 'Bitcoin mainnet',
      kind: 'mainnet',
      publicProviders: [mempoolSpace('https://mempool.space/api'), blockstreamInfo('https://blockstream.info/api')],
    },
    testnets: [
      {
        id: 'signet',
        name: 'Bitcoin signet',
        kind: 'testnet',
        publicProviders: [mempoolSpace('https://mempool.space/signet/api'), blockstreamInfo('https://blockstream.info/signet/api')],
      },
      // testnet3: the chain both public Esploras serve under /testnet (blockstream.info serves no
      // testnet4; for testnet4 configure https://mempool.space/testnet4/api yourself).
      {
        id: 'testnet',
        name: 'Bitcoin testnet',
        kind: 'testnet',
        publicProviders: [mempoolSpace('https://mempool.space/testnet/api'), blockstreamInfo('https://blockstream.info/testnet/api')],
      },
      { id: 'regtest', name: 'Bitcoin regtest', kind: 'testnet' },
    ],
  },
  coins: [
    coin({
      id: 'btc',
      price: { symbol: 'BTC', providers: { coingecko: 'bitcoin', kraken: ['XBTUSD', 'XXBTZUSD'] } },
      decimals: 8,
      source: 'Bitcoin Core: 1 BTC = 100,000,000 satoshi (COIN in src/consensus/amount.h)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    btc: 546n, // 546 sat: Bitcoin Core's dust limit of a P2PKH output
  },
  // The watcher's default poll interval follows it (capped at 30 s): a block every 10 minutes on average.
  blockTimeSeconds: 600,
  // Two confirmations: the usual merchant figure for moderate amounts; reorgs deeper than one block
  // are rare on mainnet. Operators raise it per project for large invoices.
  defaultConfirmations: 2,
  // Consensus accepts a block stamped just above the median of the last 11 (about an hour back) and up to two hours ahead.
  blockTimeSkewSeconds: 7200,
  // PSBTs over the pool's P2WPKH outputs (src/treasury of @gw/chain-btc; issue 35).
  capabilities: { ...ORDINARY_CAPABILITIES, treasury: true },
  accountPath: { mainnet: "m/84'/0'/0'", testnet: "m/84'/1'/0'" },
};
