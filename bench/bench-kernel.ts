/**
 * The gateway kernels the benchmarks measure: the composition's plugins and chains on a database
 * from `benchPostgres().withDatabase`, with the settings every benchmark shares and its own on top.
 */
import { pino } from 'pino';
import { CLI_ACTOR, createKernel, loadConfig, type Kernel, type KernelRole } from '@gw/kernel';
import { startTestKernel, withOfflineConfig, type TestKernel } from '@gw/kernel/testing';
import { chains, plugins } from '@gw/app-gateway';
import { ethWallet } from '@gw/testing';

/** The master key of every benchmark's kernels (a benchmark's child processes need it too). */
export const BENCH_MASTER_KEY = '0f'.repeat(32);

/** Rates from the fixed provider only, ETH at 3,000 USD: no benchmark reaches a real rate provider. */
export const FIXED_ETH_RATE = { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': { ETH: '3000' } } as const;

/** What a benchmark's kernel differs in. */
export interface BenchKernelOptions {
  readonly role: KernelRole;
  /** Dotted config overrides on top of the shared settings. */
  readonly overrides?: Record<string, unknown>;
  /** Default: warn. */
  readonly logLevel?: string;
}

/**
 * A kernel (not started) on `databaseUrl`: HTTP on a free loopback port, warn-level logs, the bench
 * master key, then `overrides`; nothing reaches the internet unless they say so (`OFFLINE_PLUGIN_CONFIG`).
 */
export function createBenchKernel(databaseUrl: string, { role, overrides = {}, logLevel = 'warn' }: BenchKernelOptions): Kernel {
  const config = loadConfig({
    env: {},
    file: false,
    overrides: withOfflineConfig(plugins, {
      'database.url': databaseUrl,
      'http.port': 0,
      'http.host': '127.0.0.1',
      'log.level': 'warn',
      'security.masterKey': BENCH_MASTER_KEY,
      ...overrides,
    }),
  });
  return createKernel({ config, plugins, chains, role, logger: pino({ level: logLevel }) });
}

/**
 * @gw/kernel's test kernel (started, silent) on a database the benchmark owns: `withDatabase` drops
 * it afterwards, the kernel's `close` does not.
 */
export function startBenchTestKernel(databaseUrl: string, role: KernelRole, config: Record<string, unknown>): Promise<TestKernel> {
  const database = { url: databaseUrl, name: new URL(databaseUrl).pathname.slice(1), drop: async () => undefined };
  return startTestKernel({ plugins, chains, role, database, config });
}

/**
 * A testnet project named `name` with @gw/testing's eth wallet bound and verified and its address
 * pool filled, and one real invoice of it (12.5 USD in eth) that a benchmark clones in bulk.
 */
export async function ethProjectWithSeedInvoice(kernel: Kernel, name: string) {
  const { tenancyProjects, walletsWallets, addressPoolReplenisher, invoicesService } = kernel.cradle;
  const { project } = await tenancyProjects.create({ name, kind: 'testnet' }, CLI_ACTOR);
  const { challenge } = await walletsWallets.register({ projectId: project.id, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  await walletsWallets.verify({ projectId: project.id, chain: 'eth', signature: await ethWallet.sign(challenge.message) }, CLI_ACTOR);
  await addressPoolReplenisher.replenish({ projectId: project.id });
  const principal = (await tenancyProjects.principal(project.id))!;
  const seed = (await invoicesService.create(principal, { external_id: 'seed', coin: 'eth', amount_usd: 12.5 }, CLI_ACTOR)).invoice;
  return { project, principal, seed };
}
