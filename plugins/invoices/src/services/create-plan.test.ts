import test from 'ava';
import { pino } from 'pino';
import { createChainRegistry, fromBaseUnits, isAppError, type CoinId, type ProjectPrincipal } from '@gw/kernel';
import type { RateQuote } from '@gw/plugin-rates';
import { ALL_CHAINS } from '../../test/helpers.js';
import {
  createAudit,
  decideCreate,
  invoiceRow,
  normaliseCreate,
  partnerUrl,
  prepareCreate,
  type CreateInvoiceInput,
  type CreateRequest,
  type Prepared,
} from './create-plan.js';
import type { ResolvedPolicy } from './policy-service.js';

// The create path's decisions without a database: what it refuses, what it computes, what it writes.

const chains = createChainRegistry(ALL_CHAINS, pino({ level: 'silent' }));
const testnet: ProjectPrincipal = {
  id: '01JPROJECT0000000000000000',
  kind: 'testnet',
  status: 'active',
  operatorId: '01JOPERATOR000000000000000',
  subscriptionActive: true,
};
const actor = { actor: 'test', channel: 'cli' } as const;
const quote = (rate: string) => async (): Promise<RateQuote> =>
  ({ coin: 'eth' as CoinId, pair: 'ETH/USD', rate, source: 'fixed', fetchedAt: new Date(0) }) as unknown as RateQuote;
/** A rate source that has no rate for anything. */
const rateless = async (): Promise<RateQuote> => {
  throw new Error('no rate');
};
/** A fiat quote at `rate` USD per unit of whatever currency is asked. */
const fiat =
  (rate: string) =>
  async (currency: string): Promise<RateQuote> =>
    ({ base: currency, quote: 'USD', pair: `${currency}/USD`, rate, source: 'fixed', fetchedAt: new Date(0) }) as RateQuote;
const policy = (overrides: Partial<ResolvedPolicy> = {}): ResolvedPolicy =>
  ({
    project_id: testnet.id,
    default_matching_mode: 'exact',
    expiry_seconds: 900,
    confirmations: {},
    enabled_coins: ['eth', 'btc', 'ton', 'usdt_erc20'],
    overrides: {},
    ...overrides,
  }) as ResolvedPolicy;

function request(input: Partial<CreateInvoiceInput> & { coin: CoinId }): CreateRequest {
  const full = { external_id: 'order-1', ...input } as CreateInvoiceInput;
  return { project: testnet, input: full, actor, request: normaliseCreate(chains, testnet, full) };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isAppError(error) ? error.code : String(error);
  }
  return undefined;
}

test('normalise: exactly one amount, amounts within the coin decimals, bounded metadata', (t) => {
  t.is(
    code(() => normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth' })),
    'validation_error',
  );
  t.is(
    code(() => normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth', amount_usd: 1, amount_crypto: '1' })),
    'validation_error',
  );
  t.is(
    code(() => normaliseCreate(chains, testnet, { external_id: 'x', coin: 'btc', amount_crypto: '0.123456789' })),
    'validation_error',
    'BTC has 8 decimals',
  );
  t.is(
    code(() => normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth', amount_crypto: '1', metadata: { big: 'x'.repeat(20_000) } })),
    'validation_error',
  );
  t.is(normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth', amount_crypto: '1.5' }).units, 1_500_000_000_000_000_000n);
});

test('normalise: equal requests fingerprint equally (key order, trailing zeros), different ones differently', (t) => {
  const a = normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth', amount_crypto: '1.50', metadata: { a: 1, b: { c: 2, d: 3 } } });
  const b = normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth', amount_crypto: '1.5', metadata: { b: { d: 3, c: 2 }, a: 1 } });
  const c = normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth', amount_crypto: '1.5', metadata: { a: 2, b: { c: 2, d: 3 } } });
  t.is(a.fingerprint, b.fingerprint);
  t.not(a.fingerprint, c.fingerprint);
});

test('prepare: a token without a contract on the network is refused; USD converts at the rate, rounded up', async (t) => {
  const tokenless = await prepareCreate(chains, request({ coin: 'usdt_ton', amount_crypto: '1' }), quote('1'), fiat('1.08'));
  t.true(tokenless.chainEnabled && tokenless.problem !== undefined && isAppError(tokenless.problem) && tokenless.problem.code === 'coin_not_enabled');
  const usd = await prepareCreate(chains, request({ coin: 'eth', amount_usd: 10 }), quote('3'), fiat('1.08'));
  t.true(usd.chainEnabled);
  // 10 / 3 ETH = 3.333... ETH: rounded up to ETH's payment precision (8 decimals), the payer never
  // pays less than the USD amount and is asked for 3.33333334 ETH, not 3.333333333333333334.
  t.is((usd as Extract<Prepared, { chainEnabled: true }>).units, 3_333_333_340_000_000_000n);
  const failing = await prepareCreate(chains, request({ coin: 'eth', amount_usd: 10 }), rateless, fiat('1.08'));
  t.true(failing.chainEnabled && failing.quoteError instanceof Error, 'a rate failure is kept for decide, not thrown');
});

test('decide: coin, rate and amount checks in order; parameters from the policy; times in whole seconds', async (t) => {
  const item = request({ coin: 'eth', amount_crypto: '1' });
  const prepared = await prepareCreate(chains, item, quote('3000'), fiat('1.08'));
  t.is(
    code(() => decideCreate(item, prepared, policy({ enabled_coins: ['btc'] }), undefined)),
    'coin_not_enabled',
  );
  const zero = request({ coin: 'eth', amount_crypto: '0' });
  t.is(
    code(() => decideCreate(zero, { ...(prepared as object), units: 0n } as Prepared, policy(), undefined)),
    'amount_out_of_range',
  );
  const now = new Date('2026-11-24T10:00:00.750Z');
  const plan = decideCreate(item, prepared, policy({ confirmations: { eth: 7 }, expiry_seconds: 600, default_matching_mode: 'at_least' }), undefined, now);
  t.is(plan.confirmations, 7);
  t.is(plan.matchingMode, 'at_least');
  t.is(plan.createdAt.toISOString(), '2026-11-24T10:00:00.000Z');
  t.is(plan.expiresAt.toISOString(), '2026-11-24T10:10:00.000Z');
  t.is(
    decideCreate(item, prepared, policy(), undefined, now).confirmations,
    chains.get('eth').definition.defaultConfirmations,
    'the chain default without an override',
  );
  const walletError = new Error('wallet_not_bound');
  const noRate = await prepareCreate(chains, request({ coin: 'eth', amount_usd: 5 }), rateless, fiat('1.08'));
  t.throws(() => decideCreate(item, noRate, policy(), walletError), { is: walletError }, 'a project without a wallet hears about the wallet first');
});

test('invoice row: a pending row with the allocation, the payment URI carries the memo where the chain reads one', async (t) => {
  const item = request({ coin: 'ton', amount_crypto: '2' });
  const plan = decideCreate(item, await prepareCreate(chains, item, quote('5'), fiat('1.08')), policy(), undefined);
  const ton = chains.get('ton');
  const derived = ton.deriveAddress(ton.parseAccountKey(ton.generateAccountKey!('testnet'), 'testnet'), 3);
  const allocation = {
    addressId: '01JADDRESS0000000000000000',
    address: derived.address,
    derivationPath: derived.path,
    projectId: testnet.id,
    chain: 'ton' as const,
    walletId: 'w',
    isOverlay: false,
    index: 3,
  };
  const row = invoiceRow(item, plan, allocation as never);
  t.is(row.status, 'pending');
  t.is(row.amount_units, 2000000000n);
  t.regex(row.payment_token, /^[0-9a-f]{16}$/);
  t.true(row.payment_uri.includes(row.payment_token), row.payment_uri);
  t.like(createAudit(item, row, allocation as never), {
    action: 'invoice.create',
    target: `invoice:${row.id}`,
    details: { overlay: false, amount_units: '2000000000' },
  });
});

test('prepare: a sandbox project invoices every token (synthetic contract where the testnet has none); testnet refuses them unless the operator configured a contract', async (t) => {
  const sandbox: ProjectPrincipal = { ...testnet, kind: 'sandbox' };
  const tokens = chains
    .list()
    .flatMap((chain) =>
      chain.definition.coins.filter((coin) => coin.contracts && !coin.contracts[chain.definition.networks.testnets[0].id]).map((coin) => coin.id),
    );
  t.deepEqual(tokens.sort(), ['usdc_bep20', 'usdt_bep20', 'usdt_erc20', 'usdt_polygon', 'usdt_ton', 'usdt_trc20']);
  for (const coin of tokens) {
    const input = { external_id: 'x', coin, amount_crypto: '1' } as CreateInvoiceInput;
    const inSandbox = await prepareCreate(
      chains,
      { project: sandbox, input, actor, request: normaliseCreate(chains, sandbox, input) },
      quote('1'),
      fiat('1.08'),
    );
    t.true(inSandbox.chainEnabled && inSandbox.problem === undefined, coin);
    const onTestnet = await prepareCreate(chains, request({ coin, amount_crypto: '1' }), quote('1'), fiat('1.08'));
    t.true(onTestnet.chainEnabled && isAppError(onTestnet.problem) && onTestnet.problem.code === 'coin_not_enabled', coin);
  }
  const configured = createChainRegistry(ALL_CHAINS, pino({ level: 'silent' }), {
    testTokenContracts: { usdt_erc20: { sepolia: '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06' } },
  });
  const input = { external_id: 'x', coin: 'usdt_erc20', amount_crypto: '1' } as CreateInvoiceInput;
  const withContract = await prepareCreate(
    configured,
    { project: testnet, input, actor, request: normaliseCreate(configured, testnet, input) },
    quote('1'),
    fiat('1.08'),
  );
  t.true(withContract.chainEnabled && withContract.problem === undefined);
  const eth = configured.coin('usdt_erc20').adapter;
  t.true(
    eth
      .paymentUri({ coin: 'usdt_erc20', network: 'testnet', address: '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06', amountUnits: 1n })
      .includes('0x7169D38820dfd117C3FA1f22a697dBA58d90BA06'),
  );
});

test('configured test token contracts: a native coin, a mainnet, an unknown coin or an invalid address stop the start', (t) => {
  const build = (configured: Record<string, Record<string, string>>) => () =>
    createChainRegistry(ALL_CHAINS, pino({ level: 'silent' }), { testTokenContracts: configured });
  t.throws(build({ eth: { sepolia: '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06' } }), { message: /native coin/ });
  t.throws(build({ usdt_erc20: { ethereum: '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06' } }), { message: /use sepolia only \(mainnet contracts are fixed\)/ });
  t.throws(build({ usdt_trc20: { nile: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } }), { message: /TRON use shasta only/ }, 'a second testnet would never be used');
  t.throws(build({ usdt_nope: { sepolia: '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06' } }), { message: /no enabled chain carries/ });
  t.throws(build({ usdt_trc20: { shasta: '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06' } }), { message: /not a TRON testnet address/ });
});

test('normalise: a request without the later fields (return_url, cancel_url) fingerprints as before they existed, so a retry of an older invoice stays a replay', (t) => {
  const input = {
    external_id: 'order-1',
    coin: 'eth',
    amount_crypto: '1.5',
    metadata: { b: [1, 'x'], a: null },
    callback_url: 'https://shop.example.com/hooks',
    matching_mode: 'at_least',
  } as CreateInvoiceInput;
  // Computed by the code before issue 21 (088e282) for the same request.
  t.is(normaliseCreate(chains, testnet, input).fingerprint, '7c5997bef5d7ed31a4b4efb7c8580795edbd0cbd9f0e05e20ad31529eb73bc69');
  t.not(
    normaliseCreate(chains, testnet, { ...input, return_url: 'https://shop.example.com/done' } as CreateInvoiceInput).fingerprint,
    '7c5997bef5d7ed31a4b4efb7c8580795edbd0cbd9f0e05e20ad31529eb73bc69',
  );
});

test('return_url and cancel_url: loopback is decided on the parsed host, exactly (issue 33 finding 16)', (t) => {
  // Plain http is allowed to this machine only: 127.0.0.0/8 in any written form, ::1, localhost.
  for (const url of [
    'http://127.0.0.1:8080/done',
    'http://127.9.8.7/',
    'http://127.1/',
    'http://0x7f.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://localhost/',
    'http://shop.localhost/',
  ]) {
    t.is(
      code(() => partnerUrl(url, 'return_url', 'testnet')),
      undefined,
      url,
    );
    t.is(
      code(() => partnerUrl(url, 'cancel_url', 'production')),
      'validation_error',
      `production ${url}`,
    );
  }
  // Names that only look like loopback are domains: plain http to them is refused.
  for (const url of ['http://127.evil.com/', 'http://127.0.0.1.evil.com/', 'http://localhost.evil.com/', 'http://127/']) {
    t.is(
      code(() => partnerUrl(url, 'return_url', 'testnet')),
      'validation_error',
      url,
    );
  }
  // Over https the look-alike domain is an ordinary public name, for production too.
  t.is(partnerUrl('https://127.evil.com/done', 'return_url', 'production'), 'https://127.evil.com/done');
});

test("prepare: a USD-priced amount has at most the coin's payment decimals, never less than the USD price; an exact one stays exact", async (t) => {
  const units = async (coin: CoinId, usd: number, rate: string) => {
    const prepared = await prepareCreate(chains, request({ coin, amount_usd: usd }), quote(rate), fiat('1'));
    return (prepared as Extract<Prepared, { chainEnabled: true }>).units!;
  };
  // $50 at $3000/ETH is 0.016666... ETH: 0.01666667 ETH.
  t.is(fromBaseUnits(await units('eth', 50, '3000'), 18), '0.01666667');
  t.is(fromBaseUnits(await units('bnb', 50, '3000'), 18), '0.01666667');
  t.is(fromBaseUnits(await units('pol', 50, '0.3'), 18), '166.66666667');
  // Already within the precision: nothing is added.
  t.is(fromBaseUnits(await units('eth', 30, '3000'), 18), '0.01');
  // Coins whose decimals are the precision keep rounding to their base unit.
  t.is(fromBaseUnits(await units('btc', 10, '65000'), 8), '0.00015385');
  t.is(fromBaseUnits(await units('usdc_erc20', 10, '0.9998'), 6), '10.002001');
  // Distinct cent amounts stay distinct at the precision (a shared address tells invoices apart by amount).
  const amounts = await Promise.all([10, 10.01, 10.02].map((usd) => units('eth', usd, '3200.5')));
  t.is(new Set(amounts).size, 3);
  for (const [i, usd] of [10, 10.01, 10.02].entries()) {
    t.is(amounts[i]! % 10n ** 10n, 0n, 'a multiple of 10^10 wei');
    t.true(amounts[i]! * 32005n >= BigInt(Math.round(usd * 100)) * 10n ** 17n, 'worth at least the USD price');
  }
});

test('a fiat price: with its currency, alone, within its decimals; converted at the rate, rounded half-up to cents; out of bounds 422; recorded on the row', async (t) => {
  const priced = (input: Partial<CreateInvoiceInput>) => normaliseCreate(chains, testnet, { external_id: 'x', coin: 'eth', ...input });
  const refused = (input: Partial<CreateInvoiceInput>) => {
    try {
      priced(input);
    } catch (error) {
      return isAppError(error) ? `${error.code} ${String((error.details as { field?: string }).field)}` : String(error);
    }
    return undefined;
  };
  t.is(refused({ price_currency: 'EUR' }), 'validation_error price_amount');
  t.is(refused({ price_amount: '10' }), 'validation_error price_currency');
  t.is(refused({ price_currency: 'EUR', price_amount: '10', amount_usd: 10 }), 'validation_error price_currency');
  t.is(refused({ price_currency: 'EUR', price_amount: '10', amount_crypto: '1' }), 'validation_error price_currency');
  t.is(refused({ price_currency: 'EUR', price_amount: '10.001' }), 'validation_error price_amount', 'euros have two decimals');
  t.is(refused({ price_currency: 'JPY', price_amount: '1500.5' }), 'validation_error price_amount', 'yen have none');
  t.is(refused({ price_currency: 'EUR', price_amount: '0.00' }), 'validation_error price_amount');
  t.deepEqual(priced({ price_currency: 'EUR', price_amount: '19.9' }).price, { currency: 'EUR', amount: '19.90', units: 1990n, decimals: 2 });
  t.deepEqual(priced({ price_currency: 'JPY', price_amount: '1500.00' }).price, { currency: 'JPY', amount: '1500', units: 1500n, decimals: 0 });
  t.is(
    priced({ price_currency: 'EUR', price_amount: '19.9' }).fingerprint,
    priced({ price_currency: 'EUR', price_amount: '19.90' }).fingerprint,
    'the same price written two ways is the same request',
  );
  t.not(priced({ price_currency: 'EUR', price_amount: '19.90' }).fingerprint, priced({ price_currency: 'GBP', price_amount: '19.90' }).fingerprint);

  // 19.90 EUR at 1.0815 USD/EUR = 21.52185 USD: 21.52 (half-up to cents); at 1.08155: 21.522845 → 21.52; at 1.0816: 21.52384 → 21.52.
  const item = request({ coin: 'eth', price_currency: 'EUR', price_amount: '19.90' });
  const at = async (rate: string) => (await prepareCreate(chains, item, quote('3000'), fiat(rate))) as Extract<Prepared, { chainEnabled: true }>;
  t.like(await at('1.0815'), { usd: '21.52', priceRate: '1.0815' });
  t.like(await at('1.08175'), { usd: '21.53', priceRate: '1.08175' }, '21.526825 rounds up');
  const plan = decideCreate(item, await at('1.0815'), policy(), undefined);
  t.is(plan.usd, '21.52');
  const row = invoiceRow(item, plan, {
    addressId: 'a',
    address: '0x7169D38820dfd117C3FA1f22a697dBA58d90BA06',
    derivationPath: "m/44'/60'/0'/0/1",
    isOverlay: false,
  } as never);
  t.like(row, { amount_usd: '21.52', price_currency: 'EUR', price_amount: '19.90', price_rate: '1.0815' });
  t.is(row.amount_units, 7_173_340_000_000_000n, '21.52 USD at 3000 USD/ETH, rounded up to 8 decimals');

  const tiny = request({ coin: 'eth', price_currency: 'JPY', price_amount: '1' });
  t.like(await prepareCreate(chains, tiny, quote('3000'), fiat('0.0064')), { usd: '0.01' }, '0.0064 USD rounds half-up to the least amount_usd');
  const below = await prepareCreate(chains, tiny, quote('3000'), fiat('0.0044'));
  t.is(
    code(() => decideCreate(tiny, below, policy(), undefined)),
    'amount_out_of_range',
    '0.0044 USD rounds to 0.00',
  );
  const huge = request({ coin: 'eth', price_currency: 'EUR', price_amount: '999999999.99' });
  const over = await prepareCreate(chains, huge, quote('3000'), fiat('1.08'));
  t.is(
    code(() => decideCreate(huge, over, policy(), undefined)),
    'amount_out_of_range',
  );
  const unknown = await prepareCreate(chains, request({ coin: 'eth', price_currency: 'XXX', price_amount: '1' }), quote('3000'), async () => {
    throw new Error('unknown currency');
  }).catch((failure: unknown) => failure);
  t.true(unknown instanceof Error, "the rates refuse the currency: the failure is the request's own (decide throws it first)");
});
