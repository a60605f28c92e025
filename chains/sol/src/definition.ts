import { coin, ORDINARY_CAPABILITIES, PRICE_ASSETS, publicProviderAt, type ChainDefinition } from '@gw/chain-api';

/** The Solana Foundation's public JSON-RPC endpoints (keyless; issue 40). */
const solanaFoundation = publicProviderAt({
  name: 'solana-foundation',
  operator: 'solana-foundation',
  // 100 requests per 10 s per IP, 40 per 10 s for one method: 4 per second keeps every method under both.
  limit: { requestsPerSecond: 4 },
  source: 'https://solana.com/docs/references/clusters ("Maximum number of requests per 10 seconds per IP: 100"; "per IP for a single RPC: 40")',
});

/** Circle's USDC mints (mainnet and its devnet faucet mint); 6 decimals on both. */
const USDC_MAINNET = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDC_DEVNET = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';

/**
 * Solana: plain data. Keys are ed25519 with hardened-only derivation, so no public key derives
 * deposit addresses: the wallet is the merchant's own address and each invoice carries a Solana Pay
 * reference (`capabilities.paymentReferences`; README). Sources: docs/chains-sources.md.
 */
export const solDefinition: ChainDefinition = {
  id: 'sol',
  name: 'Solana',
  verificationStandard: 'bip44_ed25519',
  networks: {
    mainnet: { id: 'mainnet-beta', name: 'Solana mainnet-beta', kind: 'mainnet', publicProviders: [solanaFoundation('https://api.mainnet-beta.solana.com')] },
    testnets: [
      { id: 'devnet', name: 'Solana devnet', kind: 'testnet', publicProviders: [solanaFoundation('https://api.devnet.solana.com')] },
      // A local validator (solana-test-validator, or the tests' litesvm ledger): no public provider.
      // Config `chains.testNetworks: {"sol": "localnet"}` makes testnet projects use it.
      { id: 'localnet', name: 'Solana local validator', kind: 'testnet' },
    ],
  },
  coins: [
    coin({
      id: 'sol',
      price: { symbol: 'SOL', providers: { coingecko: 'solana', kraken: ['SOLUSD'] } },
      decimals: 9,
      // All nine digits (lamports), above the usual cap of 8, as wallets show them.
      paymentDecimals: 9,
      source: 'https://solana.com/docs/references/terminology#lamport (1 SOL = 10^9 lamports)',
    }),
    coin({
      id: 'usdc_sol',
      price: PRICE_ASSETS.USDC,
      decimals: 6,
      // localnet: the tests' ledger installs a mint at Circle's devnet address (as Base's anvil test does).
      contracts: { 'mainnet-beta': USDC_MAINNET, devnet: USDC_DEVNET, localnet: USDC_DEVNET },
      source:
        'https://developers.circle.com/stablecoins/usdc-contract-addresses (Solana mainnet EPjFWdd5…Dt1v) ; https://developers.circle.com/stablecoins/usdc-on-test-networks (Solana devnet 4zMMC9sr…ncDU) ; mint account decimals 6 (https://explorer.solana.com/address/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v)',
    }),
    coin({
      id: 'usdt_sol',
      price: PRICE_ASSETS.USDT,
      decimals: 6,
      // Tether publishes no devnet mint; USDT is unavailable to testnet projects unless
      // `chains.testTokenContracts` names one. Synthetic, sandbox only: see CoinDefinition.sandboxContract
      // (base58 of SHA-256 of "gateway sandbox token usdt_sol").
      sandboxContract: 'AUknh93CwqQMZp7YfHgGhQcuBU7QgmncJJyUkGEse6H',
      contracts: { 'mainnet-beta': 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
      source:
        'https://tether.to/en/supported-protocols/ (Solana) ; mint account decimals 6 (https://explorer.solana.com/address/Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB)',
    }),
  ],
  // Transfers below these never change an invoice (issue 33, finding 11; docs/decisions.md, "Dust floods").
  dustFloorUnits: {
    sol: 10_000n, // 0.00001 SOL, two base transaction fees
    usdc_sol: 10_000n, // 0.01 USDC
    usdt_sol: 10_000n, // 0.01 USDT
  },
  // Slots of 400 ms; the watcher's poll interval is at least 1 s anyway.
  blockTimeSeconds: 0.4,
  // `confirmed` commitment (a supermajority voted on the block) is detection, `finalized` (31+
  // confirmed blocks on top, rooted) is the one confirmation; there is nothing more to wait for.
  defaultConfirmations: 1,
  // A confirmed transaction whose blockhash (150 slots, about 60 s) expired without being finalized
  // never will be: after 90 s it is dropped like a replaced mempool payment.
  pendingTimeoutSeconds: 90,
  // One recipient: the wallet key is the merchant's address (index 0 only).
  maxAddressIndex: 0,
  capabilities: {
    ...ORDINARY_CAPABILITIES,
    paymentReferences: true,
    // One address, no HD children: no gap limit to respect.
    gapLimitApplies: false,
    // Holdings of the merchant address, payouts and refunds from it signed offline (src/treasury).
    accountTreasury: true,
  },
  // Phantom, Solflare and the Solana CLI derive the first account at m/44'/501'/0'/0' (SLIP-10 ed25519, hardened only).
  accountPath: { mainnet: "m/44'/501'/0'", testnet: "m/44'/501'/0'" },
};
