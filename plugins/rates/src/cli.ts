import { coreErrors, defineCommand, type CliCommand } from '@gw/kernel';

/** Operator CLI commands of the rates plugin. */
export const ratesCommands: CliCommand[] = [
  defineCommand(['ratesCatalogue', 'ratesConfig', 'ratesService'], {
    noun: 'rates',
    verb: 'show',
    summary: 'Cached USD quotes per asset and provider with their age; "selected" marks the quote invoices would use now.',
    flags: { coin: { type: 'string', choices: 'coins', description: 'Only the asset of this coin (usdt_trc20 shows USDT).' } },
    help: 'Shows the shared cache only; it never fetches. Run "rates refresh" to fetch now.',
    run: async ({ flags, deps }) => {
      const coin = flags['coin'] as string | undefined;
      const asset = coin ? deps.ratesCatalogue.assetOf(coin) : undefined;
      if (coin && !asset) throw coreErrors.invalid_coin({ message: `Unknown or disabled coin "${coin}".` });
      const config = deps.ratesConfig;
      return {
        ...(coin ? { coin, asset } : {}),
        providers: deps.ratesService.providers.map((p) => p.id),
        max_age_seconds: config.maxAgeSeconds,
        quotes: await deps.ratesService.cached(asset),
      };
    },
  }),
  defineCommand(['ratesService'], {
    noun: 'rates',
    verb: 'refresh',
    summary: 'Fetch USD quotes from every provider now and store them (the worker does this every minute).',
    run: async ({ deps }) => {
      const report = await deps.ratesService.refresh();
      return { ...report, quotes: await deps.ratesService.cached() };
    },
  }),
];
