import type { Logger } from 'pino';
import { coreErrors } from './errors/core-errors.js';
import type { ChainAdapter, ChainId, ChainModule, CoinDefinition, CoinId } from './chain.js';

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

export function createChainRegistry(modules: readonly ChainModule[], logger: Logger): ChainRegistry {
  const adapters = new Map<ChainId, ChainAdapter>();
  for (const module of modules) {
    if (adapters.has(module.definition.id)) throw new Error(`chain ${module.definition.id} registered twice`);
    adapters.set(module.definition.id, module.createAdapter({ logger: logger.child({ chain: module.definition.id }) }, module.definition));
  }
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
