import type { ChainDefinition } from '@gw/chain-api';

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
    mainnet: { id: 'bitcoin', name: 'Bitcoin mainnet', kind: 'mainnet' },
    testnets: [
      { id: 'signet', name: 'Bitcoin signet', kind: 'testnet' },
      { id: 'testnet', name: 'Bitcoin testnet', kind: 'testnet' },
      { id: 'regtest', name: 'Bitcoin regtest', kind: 'testnet' },
    ],
  },
  coins: [
    {
      id: 'btc',
      symbol: 'BTC',
      price: { symbol: 'BTC', providers: { coingecko: 'bitcoin', kraken: ['XBTUSD', 'XXBTZUSD'] } },
      decimals: 8,
      paymentDecimals: 8,
      source: 'Bitcoin Core: 1 BTC = 100,000,000 satoshi (COIN in src/consensus/amount.h)',
    },
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
  capabilities: {
    requiresActivation: false,
    supportsMemo: false,
    addressReuseAfterCooldown: true,
    gapLimitApplies: true,
    sandboxKeyGeneration: true,
    // PSBTs over the pool's P2WPKH outputs (src/treasury of @gw/chain-btc; issue 35).
    treasury: true,
  },
  accountPath: { mainnet: "m/84'/0'/0'", testnet: "m/84'/1'/0'" },
};
