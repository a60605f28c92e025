import { coin, ORDINARY_CAPABILITIES, publicProviderAt, type ChainDefinition } from '@gw/chain-api';

/** Koios API v1 (`kind` `koios`) on its public, unauthenticated tier. */
const koios = publicProviderAt({
  name: 'koios',
  operator: 'koios',
  kind: 'koios',
  limit: { requestsPerSecond: 5 },
  source:
    'https://api.koios.rest (koios-artifacts specs/fragments/info.yaml, "Limits": 100 requests per 10 s per IP, then 60 s of 429; the unauthenticated public tier "has low limits", no figure given): 5 requests/s chosen, half the burst limit',
});

/** Cardano: plain data. Preprod is the default testnet. Sources: docs/chains-sources.md. */
export const adaDefinition: ChainDefinition = {
  id: 'ada',
  name: 'Cardano',
  verificationStandard: 'cip1852',
  networks: {
    // Koios without a token (issue 40): one operator, quorum 1.
    mainnet: { id: 'cardano', name: 'Cardano mainnet', kind: 'mainnet', publicProviders: [koios('https://api.koios.rest/api/v1')] },
    testnets: [
      { id: 'preprod', name: 'Cardano preprod', kind: 'testnet', publicProviders: [koios('https://preprod.koios.rest/api/v1')] },
      { id: 'preview', name: 'Cardano preview', kind: 'testnet', publicProviders: [koios('https://preview.koios.rest/api/v1')] },
    ],
  },
  coins: [
    coin({
      id: 'ada',
      price: { symbol: 'ADA', providers: { coingecko: 'cardano', kraken: ['ADAUSD'] } },
      decimals: 6,
      source: 'https://docs.cardano.org/ (1 ada = 1,000,000 lovelace)',
    }),
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
  capabilities: { ...ORDINARY_CAPABILITIES, treasury: true },
  accountPath: { mainnet: "m/1852'/1815'/0'", testnet: "m/1852'/1815'/0'" },
};
