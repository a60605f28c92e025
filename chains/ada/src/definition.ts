import type { ChainDefinition } from '@gw/chain-api';

/** Cardano: plain data. Preprod is the default testnet. Sources: docs/chains-sources.md. */
export const adaDefinition: ChainDefinition = {
  id: 'ada',
  name: 'Cardano',
  verificationStandard: 'cip1852',
  networks: {
    mainnet: { id: 'cardano', name: 'Cardano mainnet', kind: 'mainnet' },
    testnets: [
      { id: 'preprod', name: 'Cardano preprod', kind: 'testnet' },
      { id: 'preview', name: 'Cardano preview', kind: 'testnet' },
    ],
  },
  coins: [
    {
      id: 'ada',
      symbol: 'ADA',
      price: { symbol: 'ADA', providers: { coingecko: 'cardano', kraken: ['ADAUSD'] } },
      decimals: 6,
      paymentDecimals: 6,
      source: 'https://docs.cardano.org/ (1 ada = 1,000,000 lovelace)',
    },
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    ada: 10_000n, // 0.01 ADA (a Cardano output below ~1 ADA cannot exist anyway)
  },
  // The watcher's default poll interval follows it (capped at 30 s): a block every 20 s on average (1 s slots, active slot coefficient 0.05).
  blockTimeSeconds: 20,
  // 15 blocks (~5 min at 20 s per block): the common exchange figure; Ouroboros Praos settlement
  // for large amounts is longer (operators may raise it).
  defaultConfirmations: 15,
  capabilities: {
    requiresActivation: false,
    supportsMemo: false,
    addressReuseAfterCooldown: true,
    gapLimitApplies: true,
    sandboxKeyGeneration: true,
    treasury: true,
  },
  accountPath: { mainnet: "m/1852'/1815'/0'", testnet: "m/1852'/1815'/0'" },
};
