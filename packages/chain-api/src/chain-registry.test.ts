import test from 'ava';
import { pino } from 'pino';
import { createChainRegistry } from './chain-registry.js';
import type { ChainAdapter, ChainAdapterDeps, ChainDefinition, ChainModule, CoinDefinition } from './chain.js';

// The registry's start-up checks on plain definitions. The adapter only needs the members the
// registry itself touches (its definition, and whether it generates sandbox keys): no chain
// behaviour is exercised here, the chains' own tests and the conformance suite do that.

const logger = pino({ level: 'silent' });
const USD_COIN = { symbol: 'USDX', providers: { coingecko: 'usd-x' } };

function coin(id: string, extra: Partial<CoinDefinition> = {}): CoinDefinition {
  return { id, symbol: id.toUpperCase(), decimals: 8, paymentDecimals: 8, price: { symbol: id.toUpperCase(), providers: { coingecko: id } }, ...extra };
}

function chain(id: string, coins: readonly CoinDefinition[], extra: Partial<ChainModule> = {}, keys = true): ChainModule {
  const definition: ChainDefinition = {
    id,
    name: `Chain ${id}`,
    verificationStandard: 'bip84',
    networks: { mainnet: { id: `${id}main`, name: 'main', kind: 'mainnet' }, testnets: [{ id: `${id}test`, name: 'test', kind: 'testnet' }] },
    coins,
    dustFloorUnits: Object.fromEntries(coins.map((c) => [c.id, 0n])),
    defaultConfirmations: 1,
    capabilities: { requiresActivation: false, supportsMemo: false, addressReuseAfterCooldown: true, gapLimitApplies: true, sandboxKeyGeneration: true },
    accountPath: { mainnet: "m/84'/0'/0'", testnet: "m/84'/1'/0'" },
  };
  const createAdapter = (_deps: unknown, def: ChainDefinition) =>
    ({ definition: def, ...(keys ? { generateAccountKey: () => 'k' } : {}) }) as unknown as ChainAdapter;
  return { definition, createAdapter, ...extra };
}

const aaa = chain('aaa', [coin('aaa'), coin('usdx_aaa', { contracts: { aaamain: 'c', aaatest: 'c' }, price: USD_COIN })]);
const bbb = chain('bbb', [coin('bbb'), coin('usdx_bbb', { contracts: { bbbmain: 'c', bbbtest: 'c' }, price: USD_COIN })]);
const extra = chain('ccc', [coin('ccc')], { enabledByDefault: false });

test('chains.enabled unset runs the default chains; set, exactly the listed ones in composition order', (t) => {
  const byDefault = createChainRegistry([aaa, bbb, extra], logger);
  t.deepEqual(byDefault.chainIds(), ['aaa', 'bbb']);
  t.deepEqual(byDefault.coinIds(), ['aaa', 'usdx_aaa', 'bbb', 'usdx_bbb']);
  t.deepEqual([...byDefault.priceAssets().keys()], ['AAA', 'USDX', 'BBB']);
  t.false(byDefault.has('ccc'));
  t.is(t.throws(() => byDefault.coin('ccc'))?.message, 'Unknown or disabled coin "ccc"');

  const chosen = createChainRegistry([aaa, bbb, extra], logger, { enabled: ['ccc', 'aaa'] });
  t.deepEqual(chosen.chainIds(), ['aaa', 'ccc']);
  t.deepEqual(chosen.coinIds(), ['aaa', 'usdx_aaa', 'ccc']);
  t.false(chosen.has('bbb'));
  t.deepEqual(createChainRegistry([aaa, bbb, extra], logger, { enabled: [] }).chainIds(), []);
});

test('an unknown or repeated chain in chains.enabled stops start-up naming the key', (t) => {
  t.throws(() => createChainRegistry([aaa, bbb], logger, { enabled: ['aaa', 'doge'] }), {
    message: 'chains.enabled: unknown chain "doge"; this build has aaa, bbb',
  });
  t.throws(() => createChainRegistry([aaa, bbb], logger, { enabled: ['aaa', 'aaa'] }), { message: 'chains.enabled: chain "aaa" is listed twice' });
});

test('an inconsistent chain definition stops start-up naming the chain, enabled or not', (t) => {
  const noPrice = chain('nop', [{ id: 'nop', symbol: 'NOP', decimals: 8 } as unknown as CoinDefinition], { enabledByDefault: false });
  t.throws(() => createChainRegistry([aaa, noPrice], logger), { message: /^chain nop: coin nop has no price asset/ });
  const twice = chain('dup', [coin('dup'), coin('dup')]);
  t.throws(() => createChainRegistry([twice], logger), { message: 'chain dup: two coins have the id dup' });
  const stealing = chain('ddd', [coin('ddd'), coin('usdx_aaa', { contracts: { dddmain: 'c', dddtest: 'c' }, price: USD_COIN })]);
  t.throws(() => createChainRegistry([aaa, stealing], logger), { message: 'chain ddd: coin usdx_aaa is already a coin of chain aaa' });
  t.throws(() => createChainRegistry([aaa, chain('aaa', [coin('zzz')])], logger), { message: 'chain aaa: two chain modules have this id' });
  t.throws(() => createChainRegistry([chain('Bad-Id', [coin('bad')])], logger), { message: /^chain "Bad-Id": id must match/ });
  const lowerAsset = chain('eee', [coin('eee', { price: { symbol: 'eee', providers: {} } })]);
  t.throws(() => createChainRegistry([lowerAsset], logger), { message: /^chain eee: coin eee has no price asset/ });
});

test('public providers of a network need distinct names, an operator, a URL, a positive limit and its source', (t) => {
  const good = { name: 'one', operator: 'op-a', url: 'https://one.example', limit: { requestsPerSecond: 0.5 }, source: 'https://one.example/limits' };
  const withProviders = (...providers: unknown[]) => {
    const module = chain('pub', [coin('pub')]);
    const { networks } = module.definition;
    return {
      ...module,
      definition: { ...module.definition, networks: { ...networks, mainnet: { ...networks.mainnet, publicProviders: providers } } },
    } as ChainModule;
  };
  t.notThrows(() => createChainRegistry([withProviders(good, { ...good, name: 'two', limit: { requestsPerSecond: 1, requestsPerDay: 5000 } })], logger));
  const refusals: [unknown[], RegExp][] = [
    [[good, good], /^chain pub: public provider "one" of pubmain is listed twice/],
    [[{ ...good, name: '' }], /^chain pub: a public provider of pubmain has no name$/],
    [[{ ...good, operator: '' }], /^chain pub: public provider "one" of pubmain names no operator$/],
    [[{ ...good, url: 'ftp://one.example' }], /needs an http\(s\) url$/],
    [[{ ...good, limit: { requestsPerSecond: 0 } }], /needs limit\.requestsPerSecond above 0$/],
    [[{ ...good, limit: { requestsPerSecond: 1, requestsPerDay: 1.5 } }], /limit\.requestsPerDay must be a positive integer$/],
    [[{ ...good, source: '' }], /names no source for its limit$/],
  ];
  for (const [providers, message] of refusals) t.throws(() => createChainRegistry([withProviders(...providers)], logger), { message });
});

test('a coin without a valid payment precision stops start-up naming the coin', (t) => {
  const { paymentDecimals: _, ...bare } = coin('pp');
  for (const [name, c] of [
    ['missing', bare as CoinDefinition],
    ['above decimals', coin('pp', { paymentDecimals: 9 })],
    ['negative', coin('pp', { paymentDecimals: -1 })],
    ['fractional', coin('pp', { paymentDecimals: 2.5 })],
  ] as const) {
    t.throws(
      () => createChainRegistry([chain('ppp', [c], { enabledByDefault: false })], logger),
      { message: 'chain ppp: coin pp needs paymentDecimals, an integer from 0 to its decimals (8)' },
      name,
    );
  }
  t.deepEqual(createChainRegistry([chain('ppp', [coin('pp', { paymentDecimals: 0 })])], logger).coinIds(), ['pp']);
});

test('a chain definition without a dust floor for each coin, or with one for a coin it lacks, stops start-up', (t) => {
  const floors = (module: ChainModule, dustFloorUnits: Record<string, unknown>): ChainModule => ({
    ...module,
    definition: { ...module.definition, dustFloorUnits } as ChainDefinition,
  });
  const base = chain('hhh', [coin('hhh'), coin('usdx_hhh', { contracts: { hhhmain: 'c', hhhtest: 'c' }, price: USD_COIN })]);
  t.notThrows(() => createChainRegistry([base], logger));
  t.throws(() => createChainRegistry([floors(base, { hhh: 546n })], logger), { message: /^chain hhh: coin usdx_hhh has no dust floor/ });
  t.throws(() => createChainRegistry([floors(base, { hhh: 546n, usdx_hhh: -1n })], logger), { message: /^chain hhh: coin usdx_hhh has no dust floor/ });
  t.throws(() => createChainRegistry([floors(base, { hhh: 546, usdx_hhh: 1n })], logger), { message: /^chain hhh: coin hhh has no dust floor/ });
  t.throws(() => createChainRegistry([floors(base, { hhh: 1n, usdx_hhh: 1n, other: 1n })], logger), {
    message: 'chain hhh: dustFloorUnits names unknown coin other',
  });
});

test('one price asset with two sets of provider ids, or a key-generation capability the adapter lacks, stops start-up', (t) => {
  const otherIds = chain('fff', [
    coin('fff'),
    coin('usdx_fff', { contracts: { fffmain: 'c', ffftest: 'c' }, price: { symbol: 'USDX', providers: { coingecko: 'other' } } }),
  ]);
  t.throws(() => createChainRegistry([aaa, otherIds], logger), { message: 'chain fff: coin usdx_fff prices USDX with other provider ids than coin usdx_aaa' });
  const noKeys = chain('ggg', [coin('ggg')], {}, false);
  t.throws(() => createChainRegistry([noKeys], logger), {
    message: 'chain ggg: capabilities.sandboxKeyGeneration is true but the adapter has no generateAccountKey',
  });
});

test("chains.testNetworks puts the chosen test network first (token contracts follow it); a disabled chain's entry is accepted, a wrong one refused naming the key", (t) => {
  const twoTestnets = (id: string, extra: Partial<ChainModule> = {}): ChainModule => {
    const base = chain(
      id,
      [coin(id), coin(`usdx_${id}`, { contracts: { [`${id}main`]: 'c', [`${id}test`]: 'c', [`${id}local`]: 'local-contract' }, price: USD_COIN })],
      extra,
    );
    const { mainnet, testnets } = base.definition.networks;
    // Test token contracts are checked with the adapter's isValidAddress: any address is one here.
    const createAdapter = (deps: ChainAdapterDeps, def: ChainDefinition) => ({ ...base.createAdapter(deps, def), isValidAddress: () => true }) as ChainAdapter;
    return {
      ...base,
      createAdapter,
      definition: { ...base.definition, networks: { mainnet, testnets: [testnets[0], { id: `${id}local`, name: 'local', kind: 'testnet' }] } },
    };
  };
  const ddd = twoTestnets('ddd');
  const eee = twoTestnets('eee', { enabledByDefault: false });
  const registry = createChainRegistry([ddd, eee], logger, {
    testNetworks: { ddd: 'dddlocal', eee: 'eeelocal' },
    testTokenContracts: { usdx_ddd: { dddlocal: 'configured' } },
  });
  const { definition } = registry.get('ddd');
  t.deepEqual(
    definition.networks.testnets.map((n) => n.id),
    ['dddlocal', 'dddtest'],
  );
  t.is(definition.coins[1]!.contracts!['dddlocal'], 'configured');
  t.deepEqual(
    createChainRegistry([ddd], logger)
      .get('ddd')
      .definition.networks.testnets.map((n) => n.id),
    ['dddtest', 'dddlocal'],
  );
  // A contract for the default testnet is now one testnet projects never use.
  t.throws(() => createChainRegistry([ddd], logger, { testNetworks: { ddd: 'dddlocal' }, testTokenContracts: { usdx_ddd: { dddtest: 'x' } } }), {
    message: /^chains\.testTokenContracts\.usdx_ddd\.dddtest: testnet projects of Chain ddd use dddlocal only/,
  });
  t.throws(() => createChainRegistry([ddd, eee], logger, { testNetworks: { eee: 'nope' } }), {
    message: `chains.testNetworks.eee: "nope" is not a network of this chain; Chain eee's test networks are eeetest, eeelocal`,
  });
  t.throws(() => createChainRegistry([ddd], logger, { testNetworks: { ddd: 'dddmain' } }), { message: /^chains\.testNetworks\.ddd: "dddmain" is the mainnet/ });
  t.throws(() => createChainRegistry([ddd], logger, { testNetworks: { zzz: 'x' } }), {
    message: 'chains.testNetworks.zzz: no chain "zzz" in this build; it has ddd',
  });
});

test('payment references: the definition needs maxAddressIndex 0, and the adapter newPaymentReference exactly when declared', (t) => {
  const referenced = (maxAddressIndex: number | undefined, hasReference: boolean): ChainModule => {
    const base = chain('rrr', [coin('rrr')]);
    const definition: ChainDefinition = {
      ...base.definition,
      ...(maxAddressIndex === undefined ? {} : { maxAddressIndex }),
      capabilities: { ...base.definition.capabilities, paymentReferences: true },
    };
    const createAdapter = (deps: ChainAdapterDeps, def: ChainDefinition) => {
      const adapter = base.createAdapter(deps, def);
      return hasReference ? { ...adapter, newPaymentReference: () => 'r' } : adapter;
    };
    return { definition, createAdapter };
  };
  t.throws(() => createChainRegistry([referenced(undefined, true)], logger), {
    message: 'chain rrr: capabilities.paymentReferences needs maxAddressIndex 0 (the wallet key is the one recipient address)',
  });
  t.throws(() => createChainRegistry([referenced(0, false)], logger), {
    message: 'chain rrr: capabilities.paymentReferences is true but the adapter has no newPaymentReference',
  });
  t.deepEqual(createChainRegistry([referenced(0, true)], logger).chainIds(), ['rrr']);
  const stray = chain('sss', [coin('sss')], {
    createAdapter: (_deps, def) => ({ definition: def, generateAccountKey: () => 'k', newPaymentReference: () => 'r' }) as unknown as ChainAdapter,
  });
  t.throws(() => createChainRegistry([stray], logger), {
    message: 'chain sss: capabilities.paymentReferences is false but the adapter has newPaymentReference',
  });
});

test('pendingTimeoutSeconds must be a positive integer', (t) => {
  const base = chain('ttt', [coin('ttt')]);
  for (const pendingTimeoutSeconds of [0, -5, 1.5]) {
    t.throws(() => createChainRegistry([{ ...base, definition: { ...base.definition, pendingTimeoutSeconds } }], logger), {
      message: 'chain ttt: pendingTimeoutSeconds must be a positive integer',
    });
  }
  t.deepEqual(createChainRegistry([{ ...base, definition: { ...base.definition, pendingTimeoutSeconds: 90 } }], logger).chainIds(), ['ttt']);
});
