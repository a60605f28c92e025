import { chainErrors } from './chain-errors.js';
import { CHAIN_ID_PATTERN, COIN_ID_PATTERN, type ChainId, type CoinId, type NetworkDefinition, type NetworkKind, type ProjectKind } from './network.js';
import type { AccountKey, DerivedAddress } from './account-key.js';
import type { AccountTreasury } from './treasury/account-treasury.js';
import type { ChainTreasury } from './treasury/chain-treasury.js';
import type { ChainWatcher, WatcherOptions } from './watch/chain-watcher.js';

export type { AccountKey, DerivedAddress } from './account-key.js';

/**
 * The chain contract: `defineChain()` and the `ChainAdapter` interface.
 *
 * A chain is plain data (a {@link ChainDefinition}) plus a factory (`createAdapter`) that turns the
 * data into behaviour. One adapter may serve several definitions (the EVM adapter serves eth,
 * polygon and bsc). Optional behaviour is declared by capability flags in the definition, never by
 * a method that throws "not supported".
 *
 * Rules every adapter follows:
 * - Derivation is deterministic and uses the account-level public key only. The service never sees
 *   a private key.
 * - Money is bigint base units. Decimal strings exist only at the API edge (see `units/`).
 * - Adapters are pure with respect to the database: they never read or write tables. The address
 *   pool, wallets and invoices live in plugins that call the adapter.
 * - Bad input is reported by throwing the catalogued AppErrors of `chainErrors` (`invalid_xpub_format`,
 *   `wallet_kind_mismatch`), never by returning sentinel values.
 */

/** How the wallet's receive addresses are derived (spec 2.1 `verification_standard`). */
export type VerificationStandard = 'bip84' | 'bip44' | 'cip1852' | 'bip44_ed25519';

/**
 * The asset a coin is priced as, in USD, and the ids of that asset at the rate providers. Coins of
 * one asset (USDT on five chains) share one quote, so every coin naming an asset must give it the
 * same provider ids (the registry checks at start).
 */
export interface PriceAsset {
  /** Asset symbol, upper-case letters and digits: the base of the `<asset>/USD` pair (`BTC`, `USDT`). */
  readonly symbol: string;
  /**
   * The asset's id at each rate provider, by provider id: `coingecko` takes a CoinGecko coin id
   * (`tether`, from `/api/v3/coins/list`); `kraken` takes the pair to request followed by any other
   * key Kraken answers it under (`['XBTUSD', 'XXBTZUSD']`; Kraken's legacy assets answer under
   * their legacy code). A provider missing here does not price the asset.
   */
  readonly providers: Readonly<Record<string, string | readonly [string, ...string[]]>>;
}

/** A coin on a chain. Native coins have no contract. */
export interface CoinDefinition {
  readonly id: CoinId;
  /** Ticker shown to people (`BTC`, `USDT`). */
  readonly symbol: string;
  /** The asset whose USD price converts `amount_usd` into this coin. Required. */
  readonly price: PriceAsset;
  /** Exact number of fractional digits of the base unit (BTC 8, ETH 18, USDT on BSC 18, ...). */
  readonly decimals: number;
  /**
   * Fractional digits of an amount the gateway asks a payer for when it computes the amount itself
   * (a USD-priced invoice, rounded up to it): at most `decimals`; 8 for the 18-decimal coins, so
   * nobody is asked to type 0.016666666666666667 ETH. Required (the registry checks at start).
   */
  readonly paymentDecimals: number;
  /**
   * Token contract (ERC-20/BEP-20/TRC-20) or jetton master (TON) per network id; absent for the
   * chain's native coin. A network id missing here means the coin is not available on that network.
   */
  readonly contracts?: Readonly<Record<string, string>>;
  /**
   * A synthetic contract (jetton master on TON) that sandbox projects invoice this token with when
   * the chain's default testnet has no official contract. It is no real contract: each chain derives
   * it from the label `gateway sandbox token <coin id>` (SHA-256, cut to the chain's address
   * length) so nobody can own it, and it exists only for sandbox projects, which never watch a
   * chain. Required for a token without a contract on the default testnet (`defineChain` checks).
   */
  readonly sandboxContract?: string;
  /** Where the contract address and decimals were verified (URL or document name). */
  readonly source?: string;
}

/** Capability flags: optional behaviour is declared, never discovered by a throwing method. */
export interface ChainCapabilities {
  /** Addresses must be activated on chain before they may receive tokens (TRON). */
  readonly requiresActivation: boolean;
  /** Payments can carry a memo/comment that matching reads as `payment_token` (TON). */
  readonly supportsMemo: boolean;
  /**
   * Each address is a separate UTXO-style or account-style receiver whose reuse is safe after a
   * cooldown. False would forbid reuse entirely.
   */
  readonly addressReuseAfterCooldown: boolean;
  /** Whether BIP44-style gap limits matter for wallet software discovering funds. */
  readonly gapLimitApplies: boolean;
  /**
   * The adapter implements `generateAccountKey` (sandbox projects bind service-generated keys).
   * Without it, sandbox projects of the chain need an operator-supplied key like testnet projects.
   */
  readonly sandboxKeyGeneration: boolean;
  /**
   * The adapter implements `createTreasury`: the gateway can build unsigned transactions that move
   * what the chain's pool addresses received, verify them once signed and broadcast them (issue 35).
   * Absent or false: the treasury shows balances only.
   */
  readonly treasury?: boolean;
  /**
   * The adapter implements `createAccountTreasury` (issue 36): account chains (EVM, TRON, TON) whose
   * deposit addresses are accounts that need gas (and, on TRON, activation) to move what they hold.
   */
  readonly accountTreasury?: boolean;
  /**
   * One recipient address, a fresh reference per invoice (Solana Pay; issue 43), for chains whose
   * keys cannot derive addresses from a public key (ed25519 with hardened-only derivation). The
   * wallet key is the recipient address itself: `parseAccountKey` takes an address and
   * `deriveAddress(key, 0)` gives it back, so the definition's `maxAddressIndex` is 0 and the
   * address pool holds one row per wallet, which every invoice shares without being an overlay. The
   * adapter implements `newPaymentReference`; `paymentUri` puts `input.reference` in the URI; the
   * watcher reports the references each transfer carries (`ObservedTransfer.references`), and
   * matching picks the invoice by reference (docs/adding-a-chain.md, "Chains without public-key
   * derivation"). Absent or false: addresses are derived, one per invoice.
   */
  readonly paymentReferences?: boolean;
}

/** Plain data describing a chain: no behaviour, no I/O. */
export interface ChainDefinition {
  readonly id: ChainId;
  readonly name: string;
  readonly verificationStandard: VerificationStandard;
  /**
   * Production projects use `mainnet`; testnet and sandbox projects use the first of `testnets`
   * (the default; config `chains.testNetworks` moves another one first when the registry builds
   * the adapter).
   */
  readonly networks: {
    readonly mainnet: NetworkDefinition;
    readonly testnets: readonly [NetworkDefinition, ...NetworkDefinition[]];
  };
  readonly coins: readonly CoinDefinition[];
  /**
   * Dust floor per coin id, in base units (issue 33, finding 11): a transfer below it is recorded
   * by the watchers but never changes an invoice (no status, no event, not counted). Every coin of
   * the chain has an entry (`defineChain` checks); 0n turns the floor off. Kept beside the coin
   * list, keyed by coin id, so each coin's own line stays as it is. See `dustFloorOf`.
   */
  readonly dustFloorUnits: Readonly<Record<string, bigint>>;
  /** Confirmations an invoice needs before it counts as paid, unless the project overrides it. */
  readonly defaultConfirmations: number;
  readonly capabilities: ChainCapabilities;
  /** Account-level derivation path prefix shown to operators, e.g. `m/84'/0'/0'`. */
  readonly accountPath: Readonly<Record<NetworkKind, string>>;
  /**
   * Highest receive index the chain can derive (TON V5R1 subwallet ids are 15-bit: 32767).
   * Absent: 2^31 - 1, the BIP32 non-hardened limit. The address pool never asks beyond it.
   */
  readonly maxAddressIndex?: number;
  /**
   * How far a block's timestamp may run behind the real time it was mined (seconds). Matching
   * treats a payment in a block stamped more than this before an invoice's creation as made before
   * that invoice existed. Absent: 120 (chains whose blocks carry slot or wall-clock times).
   */
  readonly blockTimeSkewSeconds?: number;
  /**
   * The chain's target time between blocks (seconds; may be below 1). The watcher's default poll
   * interval follows it (`pollIntervalOf`). Absent: 5.
   */
  readonly blockTimeSeconds?: number;
  /**
   * How long a transfer the watcher reported outside a final block (`ChainWatcher.mempool`) may stay
   * there before the watchers drop it (its invoice hears `payment_dropped`, goes back to pending and
   * may expire), in seconds: the chain's own bound, where it has one (Solana: a confirmed
   * transaction whose blockhash expired without being finalized never will be). The watchers use the
   * smaller of this and config `plugins.watchers.mempoolTimeoutSeconds`. Absent: the config's alone.
   */
  readonly pendingTimeoutSeconds?: number;
}

/** Input to `paymentUri`. */
export interface PaymentUriInput {
  readonly coin: CoinId;
  readonly network: NetworkKind;
  /** The invoice belongs to a sandbox project: a token may use its `sandboxContract` (see `tokenContractFor`). */
  readonly sandbox?: boolean;
  readonly address: string;
  readonly amountUnits: bigint;
  /** Memo/comment to include where the chain supports one (TON `text`). */
  readonly memo?: string;
  /** Label/message for BIP21-style URIs. */
  readonly label?: string;
  /** A message for the payer's wallet to show, where the URI has one apart from the label (Solana Pay `message`). */
  readonly message?: string;
  /**
   * The invoice's payment reference (chains with `capabilities.paymentReferences`: a value of
   * `newPaymentReference`), which the URI carries so that the payer's wallet adds it to the
   * transaction (Solana Pay `reference`). Absent on other chains.
   */
  readonly reference?: string;
}

/** Input to `verifyOwnership`. */
export interface OwnershipProof {
  readonly key: AccountKey;
  /** The challenge text that was signed, byte for byte. */
  readonly message: string;
  /** The signature as produced by the chain's standard wallet tooling (format per chain docs). */
  readonly signature: string;
}

/**
 * Input to `verifyAddressSignature` (issue 37: a payer claiming a refund above the operator's
 * threshold proves control of the address it gives).
 */
export interface AddressSignatureProof {
  readonly address: string;
  readonly network: NetworkKind;
  /** The text that was signed, byte for byte. */
  readonly message: string;
  /**
   * The signature as the chain's common wallets produce it for a plain message:
   * BTC/LTC the base64 "Sign message" signature (BIP-137, legacy and segwit headers);
   * EVM `personal_sign` (EIP-191) hex; TRON `signMessageV2` hex; Cardano CIP-30 `signData`
   * as `<COSE_Sign1 hex>.<COSE_Key hex>`; TON `<public key hex>.<ed25519 signature hex>` of the
   * UTF-8 message, the key's V4R2 or V5R1 wallet being the address. Each chain's README documents
   * its form.
   */
  readonly signature: string;
}

/**
 * What every chain implements: key parsing and derivation, address validation, payment URIs,
 * ownership proofs, payers' address signatures and a watcher. Everything a chain may or may not do is declared in
 * `definition.capabilities` (activation, memos, sandbox key generation); the one optional method,
 * `generateAccountKey`, exists exactly when `capabilities.sandboxKeyGeneration` is true (the
 * registry checks). Units come from `definition.coins[].decimals` and the kernel's `units/`
 * helpers, never from the adapter.
 */
export interface ChainAdapter {
  /** The chain's data (with operator-configured test token contracts merged in). */
  readonly definition: ChainDefinition;

  /**
   * Validates and normalises an account-level public key for `network`.
   * Throws `invalid_xpub_format` for malformed keys or keys at the wrong depth, and
   * `wallet_kind_mismatch` for a well-formed key of the other network kind. Only keys that encode
   * a network can be told apart (BTC: xpub/zpub vs tpub/vpub); EVM and TRON addresses do not depend
   * on the network, and Cardano account keys and TON public keys carry none, so those chains
   * accept either form.
   */
  parseAccountKey(input: string, network: NetworkKind): AccountKey;

  /**
   * Derives receive address `index` (0-based, at most `definition.maxAddressIndex`) from a parsed
   * key. Pure and deterministic: the same key and index always give the same address.
   */
  deriveAddress(key: AccountKey, index: number): DerivedAddress;

  /** Whether `address` is a valid receive address of this chain on `network`. Never throws. */
  isValidAddress(address: string, network: NetworkKind): boolean;

  /**
   * Builds the chain's standard payment URI (BIP21, EIP-681, CIP-13, ton://transfer, ...). Starts
   * with the kernel's `paymentUriCoin` checks (`invalid_coin`, negative amount, missing contract).
   */
  paymentUri(input: PaymentUriInput): string;

  /**
   * Checks that `proof.signature` is a signature of `proof.message` by the key of receive index 0,
   * in the chain's standard message-signing scheme. Returns false for a well-formed but wrong
   * signature; throws `validation_error` for a signature that cannot be parsed at all.
   */
  verifyOwnership(proof: OwnershipProof): Promise<boolean>;

  /**
   * Checks that `proof.signature` signs `proof.message` with the key that controls `proof.address`
   * on `proof.network`, in the form {@link AddressSignatureProof.signature} names for the chain.
   * Returns false for a well-formed signature by another key or of another message; throws
   * `validation_error` for a signature or address that cannot be parsed at all.
   */
  verifyAddressSignature(proof: AddressSignatureProof): Promise<boolean>;

  /**
   * Present exactly when `definition.capabilities.sandboxKeyGeneration` is true. Generates a fresh
   * account key for `network` from a random seed and returns its public half in the form
   * `parseAccountKey` accepts (at `definition.accountPath[network]`). The private half is
   * discarded: the sandbox binds such keys, and nothing is ever spent from them.
   */
  generateAccountKey?(network: NetworkKind): string;

  /**
   * Present exactly when `definition.capabilities.paymentReferences` is true. A fresh payment
   * reference for one invoice, in the chain's text form (Solana: the base58 public key of a fresh
   * ed25519 key pair whose private half is discarded): random, at least 128 bits, so no two
   * invoices ever share one; valid as an address of the chain (`isValidAddress` on both network
   * kinds), since the watcher looks payments up by it. No I/O.
   */
  newPaymentReference?(): string;

  /**
   * Builds the watcher of one network: reads blocks and transfers of the chain's coins through
   * `options.providers` (see `watch/`). The watchers plugin schedules one scanner per enabled chain
   * and network.
   */
  createWatcher(options: WatcherOptions): ChainWatcher;

  /**
   * Present exactly when `definition.capabilities.treasury` is true. Builds the treasury of one
   * network (unsigned transactions, verification of signed ones, broadcast, fee estimates,
   * reconciliation) over the same providers the watcher reads.
   */
  createTreasury?(options: WatcherOptions): ChainTreasury;

  /**
   * Present exactly when `definition.capabilities.accountTreasury` is true. Builds the account-chain
   * treasury of one network (balances and token move costs, sweep plans in signed steps, TRON
   * activation) over the same providers the watcher reads.
   */
  createAccountTreasury?(options: WatcherOptions): AccountTreasury;
}

/** Dependencies the kernel hands to a chain's adapter factory. */
export interface ChainAdapterDeps {
  readonly logger: import('pino').Logger;
}

/** A chain module: its data and the factory that gives it behaviour. */
export interface ChainModule {
  readonly definition: ChainDefinition;
  /**
   * Whether the chain runs when config `chains.enabled` is not set (default true). Chains beyond
   * the spec's seven say false, so a build can carry them without changing the default deployment.
   */
  readonly enabledByDefault?: boolean;
  readonly createAdapter: (deps: ChainAdapterDeps, definition: ChainDefinition) => ChainAdapter;
}

/**
 * Declares a chain. Checks the definition's invariants (ids, decimals, unique coins, a price asset
 * per coin, a coin's contract networks exist) so a broken definition fails at import time, not at
 * the first invoice. The chain registry runs the same checks on every module it is given.
 */
export function defineChain(module: ChainModule): ChainModule {
  checkChainDefinition(module.definition);
  return module;
}

/**
 * Throws an Error naming the chain (and coin) when a definition is inconsistent: a malformed chain
 * or coin id, a coin twice, a coin without a price asset, decimals or paymentDecimals out of range, a contract on a
 * network the chain does not have, a token without a contract or sandbox contract on the default
 * testnet, payment references without `maxAddressIndex` 0, a pendingTimeoutSeconds that is no
 * positive integer, a public provider without a distinct name, an operator, a URL, a limit or its source.
 */
export function checkChainDefinition(definition: ChainDefinition): void {
  if (typeof definition.id !== 'string' || !CHAIN_ID_PATTERN.test(definition.id)) {
    throw new Error(`chain ${JSON.stringify(definition.id)}: id must match ${CHAIN_ID_PATTERN}`);
  }
  const networkIds = new Set([definition.networks.mainnet.id, ...definition.networks.testnets.map((n) => n.id)]);
  const seen = new Set<string>();
  for (const coin of definition.coins) {
    if (typeof coin.id !== 'string' || !COIN_ID_PATTERN.test(coin.id)) {
      throw new Error(`chain ${definition.id}: coin id ${JSON.stringify(coin.id)} must match ${COIN_ID_PATTERN}`);
    }
    if (seen.has(coin.id)) throw new Error(`chain ${definition.id}: two coins have the id ${coin.id}`);
    seen.add(coin.id);
    if (!coin.price || typeof coin.price.symbol !== 'string' || !/^[A-Z][A-Z0-9]{0,15}$/.test(coin.price.symbol)) {
      throw new Error(`chain ${definition.id}: coin ${coin.id} has no price asset (price.symbol, upper-case like "BTC")`);
    }
    if (typeof coin.price.providers !== 'object' || coin.price.providers === null) {
      throw new Error(`chain ${definition.id}: coin ${coin.id} has no rate provider ids (price.providers)`);
    }
    if (!Number.isInteger(coin.decimals) || coin.decimals < 0 || coin.decimals > 36) {
      throw new Error(`chain ${definition.id}: coin ${coin.id} has invalid decimals`);
    }
    if (!Number.isInteger(coin.paymentDecimals) || coin.paymentDecimals < 0 || coin.paymentDecimals > coin.decimals) {
      throw new Error(`chain ${definition.id}: coin ${coin.id} needs paymentDecimals, an integer from 0 to its decimals (${coin.decimals})`);
    }
    for (const network of Object.keys(coin.contracts ?? {})) {
      if (!networkIds.has(network)) {
        throw new Error(`chain ${definition.id}: coin ${coin.id} names unknown network ${network}`);
      }
    }
    if (coin.sandboxContract !== undefined && !coin.contracts) {
      throw new Error(`chain ${definition.id}: native coin ${coin.id} cannot have a sandbox contract`);
    }
    if (coin.contracts && !coin.contracts[definition.networks.testnets[0].id] && coin.sandboxContract === undefined) {
      throw new Error(`chain ${definition.id}: token ${coin.id} has no contract on ${definition.networks.testnets[0].id}, so it needs a sandboxContract`);
    }
    const floor = definition.dustFloorUnits?.[coin.id];
    if (typeof floor !== 'bigint' || floor < 0n) {
      throw new Error(`chain ${definition.id}: coin ${coin.id} has no dust floor (dustFloorUnits.${coin.id}: a non-negative bigint of base units)`);
    }
  }
  for (const id of Object.keys(definition.dustFloorUnits ?? {})) {
    if (!seen.has(id)) throw new Error(`chain ${definition.id}: dustFloorUnits names unknown coin ${id}`);
  }
  if (definition.capabilities.paymentReferences && definition.maxAddressIndex !== 0) {
    throw new Error(`chain ${definition.id}: capabilities.paymentReferences needs maxAddressIndex 0 (the wallet key is the one recipient address)`);
  }
  if (definition.pendingTimeoutSeconds !== undefined && !(Number.isInteger(definition.pendingTimeoutSeconds) && definition.pendingTimeoutSeconds > 0)) {
    throw new Error(`chain ${definition.id}: pendingTimeoutSeconds must be a positive integer`);
  }
  if (!Number.isInteger(definition.defaultConfirmations) || definition.defaultConfirmations < 0) {
    throw new Error(`chain ${definition.id}: defaultConfirmations must be a non-negative integer`);
  }
  for (const network of [definition.networks.mainnet, ...definition.networks.testnets]) checkPublicProviders(definition.id, network);
}

/**
 * A network's public providers (issue 40) as the watchers use them: names that differ (they label
 * metrics and marks), an operator, an http(s) URL, a positive limit and the source of that limit.
 */
function checkPublicProviders(chain: string, network: NetworkDefinition): void {
  const names = new Set<string>();
  for (const provider of network.publicProviders ?? []) {
    const where = `chain ${chain}: public provider ${JSON.stringify(provider.name)} of ${network.id}`;
    if (typeof provider.name !== 'string' || provider.name === '') throw new Error(`chain ${chain}: a public provider of ${network.id} has no name`);
    if (names.has(provider.name)) throw new Error(`${where} is listed twice; names label metrics and marks, and must differ`);
    names.add(provider.name);
    if (typeof provider.operator !== 'string' || provider.operator === '') throw new Error(`${where} names no operator`);
    if (typeof provider.url !== 'string' || !/^https?:\/\//.test(provider.url)) throw new Error(`${where} needs an http(s) url`);
    const { requestsPerSecond, requestsPerDay } = provider.limit ?? {};
    if (typeof requestsPerSecond !== 'number' || !(requestsPerSecond > 0)) throw new Error(`${where} needs limit.requestsPerSecond above 0`);
    if (requestsPerDay !== undefined && !(Number.isInteger(requestsPerDay) && requestsPerDay > 0)) {
      throw new Error(`${where}: limit.requestsPerDay must be a positive integer`);
    }
    if (typeof provider.source !== 'string' || provider.source === '') throw new Error(`${where} names no source for its limit`);
  }
}

/**
 * The network a project kind uses on a chain: mainnet, or the chain's first testnet (its default, or
 * the one config `chains.testNetworks` chose: the registry's definitions have it first).
 */
export function networkFor(definition: ChainDefinition, kind: ProjectKind): NetworkDefinition {
  return kind === 'production' ? definition.networks.mainnet : definition.networks.testnets[0];
}

/**
 * The token contract (jetton master) an invoice of a project of `kind` uses: the contract on the
 * kind's network, and for a sandbox project without one there the coin's synthetic
 * `sandboxContract`. Undefined for a native coin, and for a token that cannot be invoiced on the
 * kind's network (a testnet without an official or operator-configured contract).
 */
export function tokenContractFor(definition: ChainDefinition, coin: CoinDefinition, kind: ProjectKind): string | undefined {
  if (!coin.contracts) return undefined;
  return coin.contracts[networkFor(definition, kind).id] ?? (kind === 'sandbox' ? coin.sandboxContract : undefined);
}

/** Looks up a coin of a chain; undefined when the chain does not carry it. */
export function coinOf(definition: ChainDefinition, coin: CoinId): CoinDefinition | undefined {
  return definition.coins.find((c) => c.id === coin);
}

/** Longest default poll interval: a pass also reads the mempool, whose payments a checkout waits for. */
export const MAX_DEFAULT_POLL_SECONDS = 30;

/**
 * The watcher's default pause between two passes of a network on this chain (whole seconds): its
 * block time, at least 1 s and at most `MAX_DEFAULT_POLL_SECONDS` (Bitcoin's 10-minute blocks
 * would otherwise leave a payment in the mempool unseen for minutes).
 */
export function pollIntervalOf(definition: ChainDefinition): number {
  return Math.min(MAX_DEFAULT_POLL_SECONDS, Math.max(1, Math.round(definition.blockTimeSeconds ?? 5)));
}

/** How far a block's timestamp may lag on this chain, in seconds (see `blockTimeSkewSeconds`). */
export function blockTimeSkewOf(definition: ChainDefinition): number {
  return definition.blockTimeSkewSeconds ?? 120;
}

/**
 * The dust floor of a coin of the chain (base units): transfers below it never change an invoice.
 * 0n for a coin the definition lacks (a definition that passed `checkChainDefinition` has them all).
 */
export function dustFloorOf(definition: ChainDefinition, coin: string): bigint {
  return definition.dustFloorUnits[coin] ?? 0n;
}

/** Whether invoices of the chain pay one recipient and are told apart by references (`capabilities.paymentReferences`). */
export function usesPaymentReferences(definition: ChainDefinition): boolean {
  return definition.capabilities.paymentReferences === true;
}

/** Highest receive index of a chain: its declared limit, else the BIP32 non-hardened 2^31 - 1. */
export function maxAddressIndexOf(definition: ChainDefinition): number {
  return definition.maxAddressIndex ?? 0x7fffffff;
}

/** Throws `validation_error` unless `index` is an integer in [0, maxAddressIndexOf(definition)]. */
export function assertAddressIndex(definition: ChainDefinition, index: number): void {
  const max = maxAddressIndexOf(definition);
  if (!Number.isSafeInteger(index) || index < 0 || index > max) {
    throw chainErrors.validation_error({ message: `Address index must be an integer in [0, ${max}] for ${definition.id}; got ${index}.` });
  }
}

/** Throws `validation_error` unless `key` was parsed by this chain's adapter. */
export function assertKeyOfChain(definition: ChainDefinition, key: AccountKey): void {
  if (key.chain !== definition.id) {
    throw chainErrors.validation_error({ message: `Key belongs to chain ${key.chain}, not ${definition.id}.` });
  }
}

/**
 * The checks every `paymentUri` starts with: the coin is carried by the chain (`invalid_coin`),
 * the amount is not negative, and for a token the contract (or jetton master) on the network the
 * input's kind resolves to (`validation_error` when the coin has none there). `contract` is
 * undefined for the native coin.
 */
export function paymentUriCoin(definition: ChainDefinition, input: PaymentUriInput): { coin: CoinDefinition; contract: string | undefined } {
  const coin = coinOf(definition, input.coin);
  if (!coin) throw chainErrors.invalid_coin({ message: `Coin ${input.coin} is not carried by ${definition.id}.` });
  if (input.amountUnits < 0n) throw chainErrors.validation_error({ message: 'Amount must not be negative.' });
  if (!coin.contracts) return { coin, contract: undefined };
  const kind: ProjectKind = input.network === 'mainnet' ? 'production' : input.sandbox ? 'sandbox' : 'testnet';
  const contract = tokenContractFor(definition, coin, kind);
  if (!contract) throw chainErrors.validation_error({ message: `${coin.symbol} (${coin.id}) has no contract on ${networkFor(definition, kind).id}.` });
  return { coin, contract };
}
