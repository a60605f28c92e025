import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';
import { CURRENCY_CODE_PATTERN, FIAT_CURRENCIES } from './fiat.js';

/** A positive plain decimal (`65000`, `0.9998`). */
const POSITIVE_DECIMAL = '^(?=.*[1-9])\\d+(?:\\.\\d+)?$';
/** An asset symbol as the coin definitions give it (`BTC`, `USDT`). */
const ASSET_PATTERN = '^[A-Z][A-Z0-9]{0,15}$';
/** A share of a rate above 0 and at most 1 (`0.1` is 10 %), with at most 6 decimals. */
const SHARE_PATTERN = '^(?:0\\.(?=\\d*[1-9])\\d{1,6}|1(?:\\.0{1,6})?)$';

const timeoutMs = Type.Integer({ minimum: 100, maximum: 60_000, default: 3_000, description: 'Per-request timeout (connect, response and body).' });

/** Config slice `plugins.rates`. */
export const RatesConfigSchema = configSlice({
  providers: Type.Array(Type.Union([Type.Literal('coingecko'), Type.Literal('kraken'), Type.Literal('fixed')]), {
    uniqueItems: true,
    minItems: 1,
    default: ['coingecko', 'kraken'],
    description:
      'Providers in order of preference: for cached quotes, and the fallback order when fetching. When `fixed` has rates and is not listed, it is appended last.',
  }),
  fixed: Type.Record(
    Type.String({ pattern: ASSET_PATTERN }),
    Type.String({ pattern: POSITIVE_DECIMAL, description: 'USD per 1 whole unit, a positive decimal string.' }),
    {
      default: {},
      description:
        'Operator-set USD rates by asset symbol of the enabled coins ({ "BTC": "65000" }), for offline development or a last resort. A symbol no coin of the build is priced as stops start-up; one of a disabled chain only is unused.',
    },
  ),
  fiat: Type.Object(
    {
      currencies: Type.Array(Type.String({ pattern: CURRENCY_CODE_PATTERN }), {
        uniqueItems: true,
        default: [],
        description: `ISO 4217 codes priced besides the built-in ${FIAT_CURRENCIES.join(', ')} (e.g. ["SEK", "PLN"]); CoinGecko and fixed rates price them, Kraken only its own pairs.`,
      }),
    },
    { additionalProperties: false, default: {} },
  ),
  fixedFiat: Type.Record(
    Type.String({ pattern: CURRENCY_CODE_PATTERN }),
    Type.String({ pattern: POSITIVE_DECIMAL, description: 'USD per 1 unit of the currency, a positive decimal string.' }),
    {
      default: {},
      description:
        'Operator-set fiat rates, USD per unit by currency code ({ "EUR": "1.08" }), served by the `fixed` provider like `fixed`. A code that is not priced (built-in or fiat.currencies), or USD (always 1), stops start-up.',
    },
  ),
  jump: Type.Object(
    {
      share: Type.String({
        pattern: SHARE_PATTERN,
        default: '0.1',
        description: 'A fetched coin rate that moves more than this share from the last accepted one is held back (0.1 = 10 %).',
      }),
      fiatShare: Type.String({
        pattern: SHARE_PATTERN,
        default: '0.05',
        description: 'The same for fiat rates (0.05 = 5 %).',
      }),
      confirmSeconds: Type.Integer({
        minimum: 60,
        maximum: 86_400,
        default: 600,
        description:
          'A held rate is accepted when another provider agrees with it (within the share), or when the provider that fetched it has kept giving it this long (a sustained move where one provider serves).',
      }),
    },
    { additionalProperties: false, default: {} },
  ),
  maxAgeSeconds: Type.Integer({ minimum: 10, maximum: 86_400, default: 600, description: 'Oldest quote ever used; older cached quotes are ignored.' }),
  refreshCron: Type.String({
    minLength: 9,
    default: '* * * * *',
    description: 'Cron (UTC) of the rates.refresh job that refreshes every asset from every provider.',
  }),
  memoSeconds: Type.Integer({ minimum: 0, maximum: 60, default: 5, description: 'In-process memo in front of the database read; 0 disables it.' }),
  failureCooldownSeconds: Type.Integer({
    minimum: 0,
    maximum: 600,
    default: 10,
    description: 'After a provider fails, the request path skips it this long (the refresh job always tries).',
  }),
  coingecko: Type.Object(
    {
      baseUrl: Type.String({ minLength: 1, default: 'https://api.coingecko.com', description: 'Pro plans use https://pro-api.coingecko.com.' }),
      apiKey: Type.Optional(Type.String({ minLength: 1, description: 'CoinGecko API key; unset uses the keyless public API.' })),
      apiKeyType: Type.Union([Type.Literal('demo'), Type.Literal('pro')], {
        default: 'demo',
        description: 'Sends the key as x-cg-demo-api-key or x-cg-pro-api-key.',
      }),
      timeoutMs,
    },
    { additionalProperties: false, default: {} },
  ),
  kraken: Type.Object(
    {
      baseUrl: Type.String({ minLength: 1, default: 'https://api.kraken.com' }),
      timeoutMs,
      pairs: Type.Record(Type.String({ pattern: ASSET_PATTERN }), Type.String({ pattern: '^[A-Z0-9]+$' }), {
        default: {},
        description:
          'Kraken pair per asset symbol, added to or replacing the coin definitions\' ones (e.g. { "BNB": "BNBUSD" } once Kraken lists it). An unknown pair fails the whole Kraken request; a symbol no coin of the build is priced as stops start-up.',
      }),
    },
    { additionalProperties: false, default: {} },
  ),
});

export type RatesConfig = Static<typeof RatesConfigSchema>;
export type ProviderId = RatesConfig['providers'][number];
