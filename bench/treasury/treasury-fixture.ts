/**
 * What the treasury benchmarks share: a gateway kernel watching btc/regtest over an Esplora
 * endpoint (the benchmark's own loopback server; no scan runs), `projects` testnet projects of one
 * operator with the test btc wallet, a PAT of that operator with treasury:read, and `addresses`
 * pool addresses each holding one confirmed unspent output.
 *
 * Set-up writes rows straight into the address pool's table (`address_pool_addresses`) and the
 * watchers' (`watchers_transfers`), as bench/watch/matching.ts does for its million addresses:
 * deriving 100,000 addresses and scanning 100,000 payments would take hours on this machine, and
 * the reads measured only need the rows. Every tenth output is an orphan (no invoice), so the
 * `unclaimed` sums have something to add up.
 */
import type { Server } from 'node:http';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { projectWithPools } from '@gw/testing';
import { benchPostgres } from '../bench-database.js';
import { startBenchTestKernel } from '../bench-kernel.js';
import { listenOnLoopback } from '../loopback-server.js';

export interface TreasuryFixture {
  readonly gw: TestKernel;
  readonly projectIds: readonly string[];
  /** A PAT of the projects' operator with treasury:read. */
  readonly token: string;
}

/** The first synthetic derivation index: far above the derived ones. */
const SYNTHETIC_FROM = 1_000_000;

export interface TreasuryFixtureOptions {
  readonly addresses: number;
  readonly projects: number;
  readonly esploraUrl: string;
  readonly reconcileBatch?: number;
}

/**
 * A treasury benchmark's frame: the benchmark's PostgreSQL, `provider` listening on loopback as the
 * watched network's Esplora endpoint, and a fixture on a scratch database handed to `measure` with
 * the time its set-up started; the gateway, the provider and PostgreSQL are stopped whatever happens.
 */
export async function runTreasuryBench(
  options: Omit<TreasuryFixtureOptions, 'esploraUrl'>,
  provider: Server,
  measure: (fixture: TreasuryFixture, setUpStartedAt: number) => Promise<void>,
): Promise<void> {
  const postgres = await benchPostgres();
  const esplora = await listenOnLoopback(provider);
  try {
    await postgres.withDatabase(async (url) => {
      const setUpStartedAt = performance.now();
      const fixture = await treasuryFixture(url, { ...options, esploraUrl: esplora.url });
      try {
        await measure(fixture, setUpStartedAt);
      } finally {
        await fixture.gw.close();
      }
    });
  } finally {
    await esplora.close();
    await postgres.stop();
  }
}

export async function treasuryFixture(databaseUrl: string, options: TreasuryFixtureOptions): Promise<TreasuryFixture> {
  const gw = await startBenchTestKernel(databaseUrl, 'gateway', {
    'chains.testNetworks': { btc: 'regtest' },
    'plugins.rates.providers': ['fixed'],
    'plugins.rates.fixed': { BTC: '60000' },
    'plugins.watchers.chains': { btc: { regtest: { providers: [{ name: 'esplora', url: options.esploraUrl }], startHeight: 0 } } },
    'plugins.watchers.scanIntervalSeconds': 3600,
    'plugins.address-pool.targetFree': 5,
    'plugins.address-pool.hardCap': 5,
    'plugins.treasury.trackCron': '0 0 1 1 *',
    'plugins.treasury.reconcileCron': '0 0 1 1 *',
    ...(options.reconcileBatch ? { 'plugins.treasury.reconcileBatch': options.reconcileBatch } : {}),
  });
  const { db, tenancyOperators, tenancyPats } = gw.kernel.cradle;
  const operatorId = (await tenancyOperators.create('bench-treasury', CLI_ACTOR)).id;
  const projectIds: string[] = [];
  for (let p = 0; p < options.projects; p++) projectIds.push((await projectWithPools(gw, operatorId, ['btc' as ChainId], 'testnet')).projectId);
  const token = (await tenancyPats.create({ scopes: ['treasury:read'], operator: operatorId }, CLI_ACTOR)).token;

  // Synthetic pool rows, spread evenly over the projects, each of its project's btc wallet.
  const perProject = Math.ceil(options.addresses / options.projects);
  for (const [p, projectId] of projectIds.entries()) {
    const wallet = await db('address_pool_addresses').where({ project_id: projectId, chain: 'btc' }).first('wallet_id');
    const n = Math.min(perProject, options.addresses - p * perProject);
    if (n <= 0) break;
    await db.raw(
      `insert into address_pool_addresses (id, project_id, chain, wallet_id, derivation_index, address, derivation_path, state, activated)
       select upper(substr(md5('id' || ? || i), 1, 26)), ?, 'btc', ?, ? + i, 'bcrt1q' || substr(md5('a' || ? || i) || md5('b' || ? || i), 1, 38),
              'm/84''/1''/0''/0/' || (? + i), 'available', true
         from generate_series(0, ? - 1) as i`,
      [p, projectId, wallet.wallet_id, SYNTHETIC_FROM, p, p, SYNTHETIC_FROM, n],
    );
  }
  // One confirmed unspent output per synthetic address; every tenth an orphan.
  await db.raw(
    `insert into watchers_transfers (id, chain, network, coin, tx_hash, output_index, to_address, amount_units, block_height, block_hash, status,
                                     project_id, pool_address_id, invoice_id, match, received_at)
     select upper(substr(md5('t' || a.id), 1, 26)), 'btc', 'regtest', 'btc', md5('x' || a.id) || md5('y' || a.id), 0, a.address,
            10000 + a.derivation_index - ?, 100, repeat('0', 64), 'in_block', a.project_id, a.id,
            case when a.derivation_index % 10 = 0 then null else upper(substr(md5('inv' || a.id), 1, 26)) end,
            case when a.derivation_index % 10 = 0 then 'orphan' else 'invoice' end, now()
       from address_pool_addresses a
      where a.chain = 'btc' and a.derivation_index >= ?`,
    [SYNTHETIC_FROM, SYNTHETIC_FROM],
  );
  await db.raw('analyze address_pool_addresses');
  await db.raw('analyze watchers_transfers');
  return { gw, projectIds, token };
}
