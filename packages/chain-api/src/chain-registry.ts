import type { Logger } from 'pino';
import { chainErrors } from './chain-errors.js';
import { checkChainDefinition, type ChainAdapter, type ChainDefinition, type ChainModule, type CoinDefinition, type PriceAsset } from './chain.js';
import type { ChainId, CoinId } from './network.js';

/**
 * Token contracts an operator uses on test networks (config `chains.testTokenContracts`): coin id →
 * testnet id → contract (jetton master on TON). They join the chain's definition, so testnet
 * projects can invoice the token there and the watcher follows its transfers.
 */
export type TestTokenContracts = Readonly<Record<string, Readonly<Record<string, string>>>>;

/**
 * The test network testnet and sandbox projects use per chain (config `chains.testNetworks`):
 * chain id → network id, one of the chain's `networks.testnets`. A chain not listed uses its first
 * (default) testnet.
 */
export type TestNetworks = Readonly<Record<string, string>>;

/** The adapters of every enabled chain, and lookups by chain and by coin. */
export interface ChainRegistry {
  /** Enabled chains in composition order. */
  list(): readonly ChainAdapter[];
  /** The adapter of `chain`; throws `invalid_coin`-style validation errors for unknown chains. */
  get(chain: ChainId): ChainAdapter;
  has(chain: string): chain is ChainId;
  /** The chain and coin definition of a coin id; throws `invalid_coin` when no enabled chain has it. */
  coin(coin: CoinId | string): { adapter: ChainAdapter; coin: CoinDefinition };
  /**
   * The definition of a coin of any chain of the build, enabled or not: for rendering what was
   * stored while a now disabled chain was enabled (its invoices keep their decimals). Undefined
   * for an id no chain of the build has.
   */
  knownCoin(coin: string): CoinDefinition | undefined;
  /**
   * `knownCoin` for a coin read from the database (an invoice, a transfer): its definition whether
   * its chain is enabled or not. Throws a plain error (a 500) for a coin no chain of the build has:
   * rows from another build, not bad input.
   */
  storedCoin(coin: string): CoinDefinition;
  /**
   * The price asset symbols of every coin of the build, enabled or not: config naming an asset
   * (a fixed rate) can tell a typo (no chain prices it) from an asset of a disabled chain.
   */
  knownPriceSymbols(): ReadonlySet<string>;
  /**
   * Whether `chain` is a chain of the build, enabled or not: config for a disabled chain (its
   * watchers) is accepted and unused, config for a chain the build does not have is a mistake.
   */
  isKnownChain(chain: string): boolean;
  /** Ids of the enabled chains, in composition order (the API's `chain` enum). */
  chainIds(): readonly ChainId[];
  /** Ids of the enabled chains' coins, chain by chain (the API's `coin` enum). */
  coinIds(): readonly CoinId[];
  /**
   * The price assets of the enabled coins by symbol (`BTC`, `USDT`), each once, in order of first
   * appearance: what the rates plugin prices.
   */
  priceAssets(): ReadonlyMap<string, PriceAsset>;
}

/** Options of {@link createChainRegistry}. */
export interface ChainRegistryOptions {
  /** Config `chains.testTokenContracts`. */
  readonly testTokenContracts?: TestTokenContracts;
  /** Config `chains.testNetworks`. */
  readonly testNetworks?: TestNetworks;
  /**
   * Config `chains.enabled`: ids of the chains to run. Absent: every module whose
   * `enabledByDefault` is not false.
   */
  readonly enabled?: readonly string[] | undefined;
}

/**
 * The modules `chains.enabled` selects, in composition order, after checking every module of the
 * build: each definition is consistent, chain ids and coin ids are unique across the build, and
 * every enabled id names a module. Throws an Error naming the config key or the chain otherwise.
 */
export function enabledChainModules(modules: readonly ChainModule[], enabled: readonly string[] | undefined): ChainModule[] {
  const byId = new Map<string, ChainModule>();
  const coinOwner = new Map<string, string>();
  for (const module of modules) {
    checkChainDefinition(module.definition);
    const id = module.definition.id;
    if (byId.has(id)) throw new Error(`chain ${id}: two chain modules have this id`);
    byId.set(id, module);
    for (const coin of module.definition.coins) {
      const owner = coinOwner.get(coin.id);
      if (owner) throw new Error(`chain ${id}: coin ${coin.id} is already a coin of chain ${owner}`);
      coinOwner.set(coin.id, id);
    }
  }
  if (enabled === undefined) return modules.filter((module) => module.enabledByDefault !== false);
  const wanted = new Set<string>();
  for (const id of enabled) {
    if (!byId.has(id)) throw new Error(`chains.enabled: unknown chain "${id}"; this build has ${[...byId.keys()].join(', ')}`);
    if (wanted.has(id)) throw new Error(`chains.enabled: chain "${id}" is listed twice`);
    wanted.add(id);
  }
  return modules.filter((module) => wanted.has(module.definition.id));
}

/**
 * Builds the registry of the chains `options.enabled` selects (see {@link enabledChainModules}).
 * Start-up stops with a message naming the key or the chain for: an unknown or repeated id in
 * `chains.enabled`; an inconsistent definition (a coin without a price asset, two coins with one
 * id, in one chain or across chains); one price asset given different provider ids by two coins;
 * an adapter whose `generateAccountKey` disagrees with `capabilities.sandboxKeyGeneration`, whose
 * `newPaymentReference` disagrees with `capabilities.paymentReferences`, or whose
 * `createTreasury` disagrees with `capabilities.treasury`; and a
 * configured test token contract for a coin no enabled chain carries, a native coin, a network
 * that is not the test network testnet projects use, or an address the chain does not accept; and a
 * `chains.testNetworks` entry for a chain the build does not have or a network that is not one of
 * the chain's test networks.
 */
export function createChainRegistry(modules: readonly ChainModule[], logger: Logger, options: ChainRegistryOptions = {}): ChainRegistry {
  const testTokenContracts = options.testTokenContracts ?? {};
  const testNetworks = options.testNetworks ?? {};
  checkTestNetworks(modules, testNetworks);
  const adapters = new Map<ChainId, ChainAdapter>();
  const unused = new Set(Object.keys(testTokenContracts));
  const assets = new Map<string, { asset: PriceAsset; coin: string }>();
  for (const module of enabledChainModules(modules, options.enabled)) {
    const definition = withTestTokenContracts(withTestNetwork(module.definition, testNetworks), testTokenContracts);
    const adapter = module.createAdapter({ logger: logger.child({ chain: definition.id }) }, definition);
    if (definition.capabilities.sandboxKeyGeneration !== (typeof adapter.generateAccountKey === 'function')) {
      throw new Error(
        `chain ${definition.id}: capabilities.sandboxKeyGeneration is ${definition.capabilities.sandboxKeyGeneration} but the adapter ${adapter.generateAccountKey ? 'has' : 'has no'} generateAccountKey`,
      );
    }
    if ((definition.capabilities.paymentReferences ?? false) !== (typeof adapter.newPaymentReference === 'function')) {
      throw new Error(
        `chain ${definition.id}: capabilities.paymentReferences is ${definition.capabilities.paymentReferences ?? false} but the adapter ${adapter.newPaymentReference ? 'has' : 'has no'} newPaymentReference`,
      );
    }
    if ((definition.capabilities.treasury ?? false) !== (typeof adapter.createTreasury === 'function')) {
      throw new Error(
        `chain ${definition.id}: capabilities.treasury is ${definition.capabilities.treasury ?? false} but the adapter ${adapter.createTreasury ? 'has' : 'has no'} createTreasury`,
      );
    }
    for (const coin of definition.coins) {
      const seen = assets.get(coin.price.symbol);
      if (!seen) assets.set(coin.price.symbol, { asset: coin.price, coin: coin.id });
      else if (!sameProviders(seen.asset, coin.price)) {
        throw new Error(`chain ${definition.id}: coin ${coin.id} prices ${coin.price.symbol} with other provider ids than coin ${seen.coin}`);
      }
    }
    for (const coin of module.definition.coins) {
      if (!(coin.id in testTokenContracts)) continue;
      unused.delete(coin.id);
      for (const [network, contract] of Object.entries(testTokenContracts[coin.id]!)) {
        if (!adapter.isValidAddress(contract, 'testnet')) {
          throw new Error(`chains.testTokenContracts.${coin.id}.${network}: "${contract}" is not a ${definition.name} testnet address`);
        }
      }
    }
    adapters.set(definition.id, adapter);
  }
  for (const coin of unused) throw new Error(`chains.testTokenContracts.${coin}: no enabled chain carries the coin`);
  const coins = new Map<string, { adapter: ChainAdapter; coin: CoinDefinition }>();
  for (const adapter of adapters.values()) {
    for (const coin of adapter.definition.coins) coins.set(coin.id, { adapter, coin });
  }
  const buildCoins = new Map(modules.flatMap((module) => module.definition.coins.map((coin) => [coin.id, coin] as const)));
  const buildSymbols: ReadonlySet<string> = new Set([...buildCoins.values()].map((coin) => coin.price.symbol));
  const chainIds = [...adapters.keys()];
  const coinIds = [...coins.keys()];
  const priceAssets: ReadonlyMap<string, PriceAsset> = new Map([...assets].map(([symbol, { asset }]) => [symbol, asset]));
  return {
    list: () => [...adapters.values()],
    chainIds: () => chainIds,
    knownPriceSymbols: () => buildSymbols,
    isKnownChain: (chain) => modules.some((module) => module.definition.id === chain),
    knownCoin: (coin) => coins.get(coin)?.coin ?? buildCoins.get(coin),
    storedCoin(coin) {
      const found = coins.get(coin)?.coin ?? buildCoins.get(coin);
      if (!found) throw new Error(`coin ${coin} of a stored row is not a coin of this build`);
      return found;
    },
    coinIds: () => coinIds,
    priceAssets: () => priceAssets,
    has: (chain: string): chain is ChainId => adapters.has(chain as ChainId),
    get(chain) {
      const adapter = adapters.get(chain);
      if (!adapter) throw chainErrors.validation_error({ message: `Unknown or disabled chain "${chain}"`, details: { field: 'chain' } });
      return adapter;
    },
    coin(coin) {
      const found = coins.get(coin);
      if (!found) throw chainErrors.invalid_coin({ message: `Unknown or disabled coin "${coin}"` });
      return found;
    },
  };
}

/**
 * Checks config `chains.testNetworks` against every chain of the build, enabled or not (an entry for
 * a disabled chain is accepted and unused, as its watcher config is): throws an Error naming the
 * key for a chain the build does not have or a network that is not one of the chain's testnets.
 */
export function checkTestNetworks(modules: readonly ChainModule[], testNetworks: TestNetworks): void {
  for (const chain of Object.keys(testNetworks)) {
    const module = modules.find((m) => m.definition.id === chain);
    if (!module) throw new Error(`chains.testNetworks.${chain}: no chain "${chain}" in this build; it has ${modules.map((m) => m.definition.id).join(', ')}`);
    withTestNetwork(module.definition, testNetworks);
  }
}

/**
 * The definition with the configured test network first: every part of the gateway reads the
 * network of testnet and sandbox projects as `networks.testnets[0]` (`networkFor`), so derivation,
 * key versions, ownership proofs, payment URIs, token contracts and the watcher all follow it.
 */
function withTestNetwork(definition: ChainDefinition, configured: TestNetworks): ChainDefinition {
  const wanted = configured[definition.id];
  const { mainnet, testnets } = definition.networks;
  if (wanted === undefined || wanted === testnets[0].id) return definition;
  const chosen = testnets.find((network) => network.id === wanted);
  if (!chosen) {
    const what = wanted === mainnet.id ? 'is the mainnet (production projects use it)' : 'is not a network of this chain';
    throw new Error(
      `chains.testNetworks.${definition.id}: "${wanted}" ${what}; ${definition.name}'s test networks are ${testnets.map((n) => n.id).join(', ')}`,
    );
  }
  return { ...definition, networks: { mainnet, testnets: [chosen, ...testnets.filter((network) => network !== chosen)] } };
}

function withTestTokenContracts(definition: ChainDefinition, configured: TestTokenContracts): ChainDefinition {
  if (!definition.coins.some((coin) => coin.id in configured)) return definition;
  // Testnet projects use the chain's first testnet only (the configured one, see withTestNetwork): a contract for another would never be used.
  const testnet = definition.networks.testnets[0].id;
  const coins = definition.coins.map((coin) => {
    const contracts = configured[coin.id];
    if (!contracts) return coin;
    if (!coin.contracts) throw new Error(`chains.testTokenContracts.${coin.id}: ${coin.id} is the native coin of ${definition.name}, not a token`);
    for (const network of Object.keys(contracts)) {
      if (network !== testnet) {
        throw new Error(
          `chains.testTokenContracts.${coin.id}.${network}: testnet projects of ${definition.name} use ${testnet} only (mainnet contracts are fixed)`,
        );
      }
    }
    return { ...coin, contracts: { ...coin.contracts, ...contracts } };
  });
  return { ...definition, coins };
}

function sameProviders(a: PriceAsset, b: PriceAsset): boolean {
  const ids = (asset: PriceAsset) => JSON.stringify(Object.entries(asset.providers).sort(([x], [y]) => (x < y ? -1 : 1)));
  return ids(a) === ids(b);
}
