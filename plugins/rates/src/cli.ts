import { CLI_ACTOR, coreErrors, defineCommand, type CliCommand } from '@gw/kernel';

/** Operator CLI commands of the rates plugin. */
export const ratesCommands: CliCommand[] = [
  defineCommand(['ratesCatalogue', 'ratesConfig', 'ratesService'], {
    noun: 'rates',
    verb: 'show',
    summary:
      'Cached USD quotes per asset (and fiat currency) and provider with their age; "selected" marks the quote invoices would use now; "held" lists rates the jump check held back.',
    flags: { coin: { type: 'string', choices: 'coins', description: 'Only the asset of this coin (usdt_trc20 shows USDT).' } },
    help: 'Shows the shared cache only; it never fetches. Run "rates refresh" to fetch now, "rates release --asset <ASSET>" to accept a held rate.',
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
        held: await deps.ratesService.held(asset),
      };
    },
  }),
  defineCommand(['ratesService'], {
    noun: 'rates',
    verb: 'refresh',
    summary: 'Fetch USD quotes (coins and fiat currencies) from every provider now and store them (the worker does this every minute).',
    run: async ({ deps }) => {
      const report = await deps.ratesService.refresh();
      return { ...report, quotes: await deps.ratesService.cached(), held: await deps.ratesService.held() };
    },
  }),
  defineCommand(['ratesService'], {
    noun: 'rates',
    verb: 'release',
    summary: 'Accept the rate of an asset that the jump check held back, as if another provider had confirmed it.',
    flags: {
      asset: {
        type: 'string',
        required: true,
        description: 'Asset symbol (BTC, USDT) or fiat currency code (EUR), as "rates show" lists it under held.',
        validate: (value) => (/^[A-Z][A-Z0-9]{0,15}$/.test(value) ? undefined : 'must be an asset symbol or currency code in capitals (BTC, EUR)'),
      },
    },
    help: 'Release a held rate only once you know the move is real (check the providers, or another source). Audited as rate.release. Without a release, the rate is accepted when another provider agrees with it, or when its own provider has kept giving it for plugins.rates.jump.confirmSeconds.',
    run: async ({ flags, deps }) => {
      const released = await deps.ratesService.release(flags['asset'] as string, CLI_ACTOR);
      return { released, quotes: await deps.ratesService.cached(released.asset) };
    },
  }),
];
