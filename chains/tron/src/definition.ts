import { coin, ORDINARY_CAPABILITIES, PRICE_ASSETS, type ChainDefinition } from '@gw/chain-api';

/**
 * TRON: plain data. Shasta is the default testnet (first); Nile is the second. Both use the same
 * T-address format. Sources: docs/chains-sources.md.
 */
export const tronDefinition: ChainDefinition = {
  id: 'tron',
  name: 'TRON',
  verificationStandard: 'bip44',
  networks: {
    mainnet: { id: 'tron', name: 'TRON mainnet', kind: 'mainnet' },
    testnets: [
      { id: 'shasta', name: 'TRON Shasta testnet', kind: 'testnet' },
      { id: 'nile', name: 'TRON Nile testnet', kind: 'testnet' },
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
