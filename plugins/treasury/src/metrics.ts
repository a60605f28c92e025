import { createCoalescer, networkGauge, sql, sqlQuery } from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import { Gauge, type Registry } from 'prom-client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AccountNetworks } from './services/account-networks.js';
import type { TreasuryNetworks } from './services/treasury-networks.js';

interface PlanFigures {
  readonly open: { status: string; chain: string; network: string; n: number }[];
  readonly oldestWaiting: number;
  readonly stuck: { chain: string; network: string; n: number }[];
  readonly differences: { chain: string; network: string; n: number }[];
  readonly hotGas: { chain: string; network: string; units: string }[];
}

/** A broadcast transaction still unconfirmed after this long counts as stuck (a bump may help). */
const STUCK_SECONDS = 3 * 3600;

/**
 * The treasury's gauges, read at scrape time so every process reports the same truth: value held
 * per chain network (the watchers' balances, in base units), open plans by status, how long the
 * oldest plan has waited (for a signature or a fee), transactions stuck unconfirmed, and the
 * differences the last reconciliation of each network found (alerts: deploy/prometheus/alerts.yml),
 * and on account chains what the opt-in hot gas wallet signed for in the last 24 hours.
 */
export function registerTreasuryGauges(
  registry: Registry,
  deps: { db: Knex; logger: Logger; watchersOutputs: ReceivedOutputs; treasuryNetworks: TreasuryNetworks; treasuryAccountNetworks: AccountNetworks },
): void {
  const shared = createCoalescer<PlanFigures | undefined>();
  const read = () =>
    shared('plans', async () => {
      try {
        const [open, waiting, stuck, differences, hotGas] = await Promise.all([
          sqlQuery<{ status: string; chain: string; network: string; n: number }>(
            deps.db,
            sql`select status, chain, network, count(*)::int as n from treasury_plans
                 where status in ('waiting_for_fee', 'awaiting_signature', 'signed', 'broadcast') group by status, chain, network`,
          ),
          sqlQuery<{ age: number | null }>(
            deps.db,
            sql`select extract(epoch from now() - min(created_at))::float8 as age from treasury_plans where status in ('waiting_for_fee', 'awaiting_signature', 'signed')`,
          ),
          sqlQuery<{ chain: string; network: string; n: number }>(
            deps.db,
            // A UTXO plan is one transaction; an account plan's are its steps (issue 36).
            sql`select chain, network, count(*)::int as n from (
                  select chain, network from treasury_plans
                   where method is null and status = 'broadcast' and confirmations = 0 and broadcast_at < now() - make_interval(secs => ${STUCK_SECONDS})
                  union all
                  select p.chain, p.network from treasury_plan_steps s join treasury_plans p on p.id = s.plan_id
                   where s.status = 'broadcast' and s.confirmations = 0 and s.broadcast_at < now() - make_interval(secs => ${STUCK_SECONDS})
                ) stuck group by chain, network`,
          ),
          sqlQuery<{ chain: string; network: string; n: number }>(
            deps.db,
            sql`select distinct on (chain, network) chain, network, differences as n from treasury_reconciliations
                 where finished_at is not null order by chain, network, id desc`,
          ),
          sqlQuery<{ chain: string; network: string; units: string }>(
            deps.db,
            sql`select p.chain, p.network, coalesce(sum(s.hot_spend_units), 0)::text as units
                  from treasury_plan_steps s join treasury_plans p on p.id = s.plan_id
                 where s.signed_by = 'hot_gas_wallet' and s.signed_at > now() - interval '24 hours'
                 group by p.chain, p.network`,
          ),
        ]);
        // What the hot gas wallet signed: the value it sends plus the most its gas costs, as its daily cap counts (decimal text from SQL).
        return { open, oldestWaiting: waiting[0]?.age ?? 0, stuck, differences, hotGas };
      } catch (error) {
        deps.logger.warn({ err: error }, 'treasury gauges unavailable');
        return undefined;
      }
    });
  new Gauge({
    name: 'gateway_treasury_open_plans',
    help: 'Treasury plans not yet confirmed nor closed, by status (waiting_for_fee, awaiting_signature, signed, broadcast), chain and network.',
    labelNames: ['status', 'chain', 'network'],
    registers: [registry],
    async collect() {
      const figures = await read();
      this.reset();
      for (const row of figures?.open ?? []) this.set({ status: row.status, chain: row.chain, network: row.network }, row.n);
    },
  });
  new Gauge({
    name: 'gateway_treasury_oldest_open_plan_age_seconds',
    help: 'Age of the oldest plan waiting for its fee, a signature or its broadcast; 0 when none waits.',
    registers: [registry],
    async collect() {
      const figures = await read();
      this.set(figures?.oldestWaiting ?? 0);
    },
  });
  networkGauge(
    registry,
    'gateway_treasury_stuck_transactions',
    `Broadcast treasury transactions still unconfirmed ${STUCK_SECONDS / 3600} hours later (bump them: gateway treasury bump).`,
    async () => (await read())?.stuck,
    (row) => row.n,
  );
  networkGauge(
    registry,
    'gateway_treasury_reconciliation_differences',
    'Differences the last reconciliation of each network found between the recorded outputs and the provider’s (reported, never corrected).',
    async () => (await read())?.differences,
    (row) => row.n,
  );
  networkGauge(
    registry,
    'gateway_treasury_hot_gas_signed_units',
    'Account chains: native base units (value plus maximum fee) the opt-in hot gas wallet signed for in the last 24 hours, per network (compare with its maxPerDayUnits).',
    async () => (await read())?.hotGas,
    (row) => Number(row.units),
  );
  new Gauge({
    name: 'gateway_treasury_held_units',
    help: 'Unspent value at pool addresses per chain network and coin, in base units (confirmed and unconfirmed). Base units of coins with many decimals exceed 2^53: read it as an order of magnitude.',
    labelNames: ['chain', 'network', 'coin'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const target of deps.treasuryNetworks.all()) {
          const page = await deps.watchersOutputs.balances({ groupBy: 'network', chain: target.chain, network: target.network, limit: 50 });
          for (const row of page.rows) this.set({ chain: row.chain, network: row.network, coin: row.coin }, Number(row.confirmedUnits + row.unconfirmedUnits));
        }
      } catch (error) {
        deps.logger.warn({ err: error }, 'treasury held-value gauge unavailable');
      }
    },
  });
}
