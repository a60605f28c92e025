import type { Logger } from 'pino';
import { coreErrors } from './errors/core-errors.js';
import type { ChainAdapter, ChainDefinition, ChainId, ChainModule, CoinDefinition, CoinId } from './chain.js';

/**
 * Token contracts an operator uses on test networks (config `chains.testTokenContracts`): coin id →
 * testnet id → contract (jetton master on TON). They join the chain's definition, so testnet
 * projects can invoice the token there and the watcher follows its transfers.
 */
export type TestTokenContracts = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The adapters of every enabled chain, and lookups by chain and by coin. */
export interface ChainRegistry {
  /** Enabled chains in composition order. */
  list(): readonly ChainAdapter[];
  /** The adapter of `chain`; throws `invalid_coin`-style validation errors for unknown chains. */
  get(chain: ChainId): ChainAdapter;
  has(chain: string): chain is ChainId;
  /** The chain and coin definition of a coin id; throws `invalid_coin` when no enabled chain has it. */
  coin(coin: CoinId | string): { adapter: ChainAdapter; coin: CoinDefinition };
}

/**
 * Builds the registry. Configured test token contracts are checked here, so a contract for a
 * coin no enabled chain carries, a native coin, a network that is not one of the chain's testnets,
 * or an address the chain does not accept stops the start with a message naming the key.
 */
export function createChainRegistry(modules: readonly ChainModule[], logger: Logger, testTokenContracts: TestTokenContracts = {}): ChainRegistry {
  const adapters = new Map<ChainId, ChainAdapter>();
  const unused = new Set(Object.keys(testTokenContracts));
  for (const module of modules) {
    if (adapters.has(module.definition.id)) throw new Error(`chain ${module.definition.id} registered twice`);
    const definition = withTestTokenContracts(module.definition, testTokenContracts);
    const adapter = module.createAdapter({ logger: logger.child({ chain: definition.id }) }, definition);
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
  return {
    list: () => [...adapters.values()],
    has: (chain: string): chain is ChainId => adapters.has(chain as ChainId),
    get(chain) {
      const adapter = adapters.get(chain);
      if (!adapter) throw coreErrors.validation_error({ message: `Unknown or disabled chain "${chain}"`, details: { field: 'chain' } });
      return adapter;
    },
    coin(coin) {
      const found = coins.get(coin);
      if (!found) throw coreErrors.invalid_coin({ message: `Unknown or disabled coin "${coin}"` });
      return found;
    },
  };
}

function withTestTokenContracts(definition: ChainDefinition, configured: TestTokenContracts): ChainDefinition {
  if (!definition.coins.some((coin) => coin.id in configured)) return definition;
  // Testnet projects use the chain's first testnet only: a contract for another would never be used.
  const testnet = definition.networks.testnets[0].id;
  const coins = definition.coins.map((coin) => {
    const contracts = configured[coin.id];
    if (!contracts) return coin;
    if (!coin.contracts) throw new Error(`chains.testTokenContracts.${coin.id}: ${coin.id} is the native coin of ${definition.name}, not a token`);
    for (const network of Object.keys(contracts)) {
      if (network !== testnet) {
        throw new Error(`chains.testTokenContracts.${coin.id}.${network}: testnet projects of ${definition.name} use ${testnet} only (mainnet contracts are fixed)`);
      }
    }
    return { ...coin, contracts: { ...coin.contracts, ...contracts } };
  });
  return { ...definition, coins };
}
