import { coin, ORDINARY_CAPABILITIES, PRICE_ASSETS, publicProviderAt, type ChainDefinition } from '@gw/chain-api';
import { TON_MAX_SUBWALLET } from './derive.js';

/** toncenter's v3 API without a key (the watcher appends `/api/v3/...` to its URL). */
const toncenter = publicProviderAt({
  name: 'toncenter',
  operator: 'toncenter',
  limit: { requestsPerSecond: 1 },
  source:
    'https://docs.ton.org/ecosystem/api/toncenter/rate-limit ("Without any API key, the default rate limit is 1 request per second"; a free key gives 10)',
});

/** TON: plain data. Sources: docs/chains-sources.md. */
export const tonDefinition: ChainDefinition = {
  id: 'ton',
  name: 'TON',
  verificationStandard: 'bip44_ed25519',
  networks: {
    // toncenter v3 without a key (issue 40): one operator, quorum 1.
    mainnet: { id: 'ton', name: 'TON mainnet', kind: 'mainnet', publicProviders: [toncenter('https://toncenter.com')] },
    testnets: [{ id: 'ton-testnet', name: 'TON testnet', kind: 'testnet', publicProviders: [toncenter('https://testnet.toncenter.com')] }],
  },
  coins: [
    coin({
      id: 'ton',
      price: { symbol: 'TON', providers: { coingecko: 'the-open-network', kraken: ['TONUSD'] } },
      decimals: 9,
      // All nine digits (nanotons), above the usual cap of 8.
      paymentDecimals: 9,
      source: 'https://docs.ton.org/ (1 TON = 10^9 nanotons)',
    }),
    coin({
      id: 'usdt_ton',
      price: PRICE_ASSETS.USDT,
      decimals: 6,
      // Tether publishes no TON testnet jetton; USDT is unavailable on testnet projects.
      // Synthetic, sandbox only: see CoinDefinition.sandboxContract.
      sandboxContract: 'kQBLhSxWq_FTVwb55TP6HUDMEueiBPMHRgT-eV6XN3hUAZqm',
      contracts: { ton: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs' },
      source: 'https://tether.to/en/supported-protocols/ ; https://tonviewer.com/EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs (jetton metadata decimals 6)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    ton: 1_000_000n, // 0.001 TON
    usdt_ton: 10_000n, // 0.01 USDT
  },
  // The watcher's default poll interval follows it (capped at 30 s): about 5 s per masterchain block.
  blockTimeSeconds: 5,
  // One masterchain-referenced block: TON's BFT consensus finalises a shardchain block once the
  // masterchain commits it (a few seconds); there are no probabilistic reorgs to wait out.
  defaultConfirmations: 1,
  capabilities: {
    ...ORDINARY_CAPABILITIES,
    supportsMemo: true,
    // Each address is a separate wallet contract (V5R1 subwallet), not an HD child key; wallet
    // software does not scan subwallets with a gap limit.
    gapLimitApplies: false,
    // TON and jetton sweeps of the subwallets, signed offline (src/treasury).
    accountTreasury: true,
  },
  accountPath: { mainnet: "m/44'/607'/0'", testnet: "m/44'/607'/0'" },
  // V5R1 subwallet numbers are 15-bit.
  maxAddressIndex: TON_MAX_SUBWALLET,
};
