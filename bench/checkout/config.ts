/** Configuration shared by the benchmark's gateway process and its writer kernel. */
export function benchConfig(databaseUrl: string): Record<string, unknown> {
  return {
    'database.url': databaseUrl,
    'http.port': 0,
    'http.host': '127.0.0.1',
    'log.level': 'warn',
    'security.masterKey': '0f'.repeat(32),
    'plugins.rates.providers': ['fixed'],
    'plugins.rates.fixed': { ETH: '3000' },
    'plugins.invoices.createRateLimitPerMinute': 1_000_000,
    'plugins.sandbox.simulateRateLimitPerMinute': 1_000_000,
    'plugins.sandbox.writeRateLimitPerMinute': 1_000_000,
    // Every page comes from this one load generator: the per-address cap would stop it at 20.
    'plugins.checkout.streamsPerClient': 10_000,
  };
}
