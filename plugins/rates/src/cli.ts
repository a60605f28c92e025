import { coreErrors, type CliCommand } from '@gw/kernel';

/** Operator CLI commands of the rates plugin. */
export const ratesCommands: CliCommand[] = [
  {
    noun: 'rates',
    verb: 'show',
    summary: 'Cached USD quotes per asset and provider with their age; "selected" marks the quote invoices would use now.',
    flags: { coin: { type: 'string', choices: 'coins', description: 'Only the asset of this coin (usdt_trc20 shows USDT).' } },
    help: 'Shows the shared cache only; it never fetches. Run "rates refresh" to fetch now.',
    run: async ({ flags, cradle }) => {
      const coin = flags['coin'] as string | undefined;
      const asset = coin ? cradle.ratesCatalogue.assetOf(coin) : undefined;
      if (coin && !asset) throw coreErrors.invalid_coin({ message: `Unknown or disabled coin "${coin}".` });
      const config = cradle.ratesConfig;
      return {
        ...(coin ? { coin, asset } : {}),
        providers: cradle.ratesService.providers.map((p) => p.id),
        max_age_seconds: config.maxAgeSeconds,
        quotes: await cradle.ratesService.cached(asset),
      };
    },
  },
  {
    noun: 'rates',
    verb: 'refresh',
    summary: 'Fetch USD quotes from every provider now and store them (the worker does this every minute).',
    run: async ({ cradle }) => {
      const report = await cradle.ratesService.refresh();
      return { ...report, quotes: await cradle.ratesService.cached() };
    },
  },
];
