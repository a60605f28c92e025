import { jsonRecords, sql, sqlQuery } from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { Knex } from 'knex';
import type { TreasuryConfig } from '../config.js';
import type { AccountNetwork } from './account-networks.js';
import { eachOutput } from './each-output.js';

/** What the gateway's records say one pool address should hold of one coin. */
export interface RecordedHolding {
  readonly address: string;
  readonly projectId: string;
  readonly coin: string;
  /** Received (the watchers' receipts in a block, attested by the quorum or not) less moved out (confirmed plans), plus gas the operator's top-ups sent there. */
  readonly expectedUnits: bigint;
  /** Native coin only: the most the address's own confirmed transactions may have burnt as fees (their gas limit × max fee). */
  readonly feeAllowanceUnits: bigint;
}

/** A pool address whose holding of a coin on chain is not what the records say. */
export interface HoldingDifference {
  readonly address: string;
  readonly projectId: string;
  readonly coin: string;
  readonly kind: 'balance_differs';
  readonly gateway_units: string;
  readonly provider_units: string;
}

/**
 * Reconciliation of an account chain (issue 36), as the UTXO chains' (reconciliation.ts) but per
 * address and coin, since an account chain has balances, not outputs: for every pool address the
 * watchers saw receive something, what they recorded as received (receipts in a block, not counting
 * the treasury's own top-up transactions), less what the treasury's confirmed plans moved out of it,
 * plus the gas its top-ups sent there, is compared with what the chain says it holds now
 * (`AccountTreasury.holdings`, `reconcileBatch` addresses a call). The native coin may fall short by
 * at most the fees the address's own confirmed transactions allowed (the unspent part of a fee's
 * maximum stays there). An address in a plan being broadcast is left out (its money is in flight).
 * Differences are recorded, never corrected.
 */
export class AccountReconciliation {
  constructor(private readonly deps: { db: Knex; watchersOutputs: ReceivedOutputs; treasuryConfig: TreasuryConfig }) {}

  /** Compares the network's pool addresses with the chain; records the differences under `runId`. */
  async run(target: AccountNetwork, runId: string): Promise<{ addresses: number; requests: number; differences: number }> {
    const recorded = await this.recorded(target);
    const addresses = [...new Set(recorded.map((r) => r.address))];
    const batch = this.deps.treasuryConfig.reconcileBatch;
    let requests = 0;
    let differences = 0;
    for (let at = 0; at < addresses.length; at += batch) {
      const chunk = new Set(addresses.slice(at, at + batch));
      requests += 1;
      const holdings = await target.treasury.holdings([...chunk]);
      const found = compareHoldings(
        recorded.filter((r) => chunk.has(r.address)),
        new Map([...holdings].map(([address, h]) => [address, h.balances])),
      );
      if (found.length > 0) {
        await sqlQuery(
          this.deps.db,
          sql`insert into treasury_reconciliation_differences (reconciliation_id, chain, network, address, project_id, coin, kind, gateway_units, provider_units)
              select ${runId}, ${target.chain}, ${target.network}, d.address, d."projectId", d.coin, d.kind, d.gateway_units::numeric, d.provider_units::numeric
                from ${jsonRecords(found)} as d(address text, "projectId" text, coin text, kind text, gateway_units text, provider_units text)`,
        );
        differences += found.length;
      }
    }
    return { addresses: addresses.length, requests, differences };
  }

  /** Per pool address and coin, what the records say it holds (addresses in a plan being broadcast left out). */
  private async recorded(target: AccountNetwork): Promise<RecordedHolding[]> {
    const own = new Set(
      (
        await sqlQuery<{ txid: string }>(
          this.deps.db,
          sql`select s.txid from treasury_plan_steps s join treasury_plans p on p.id = s.plan_id
               where p.chain = ${target.chain} and p.network = ${target.network} and s.txid is not null`,
        )
      ).map((r) => r.txid.toLowerCase()),
    );
    const byKey = new Map<string, { address: string; projectId: string; coin: string; expected: bigint; allowance: bigint }>();
    const entry = (address: string, projectId: string, coin: string) => {
      const key = `${address}\u0000${coin}`;
      let row = byKey.get(key);
      if (!row) byKey.set(key, (row = { address, projectId, coin, expected: 0n, allowance: 0n }));
      return row;
    };
    const projectOf = new Map<string, string>();
    for await (const o of eachOutput(this.deps.watchersOutputs, { chain: target.chain, network: target.network, spent: 'any', inBlockOnly: true })) {
      projectOf.set(o.address, o.projectId);
      // The treasury's own transactions (top-ups) are counted from its plans, not as receipts.
      if (own.has(o.txHash.toLowerCase())) continue;
      entry(o.address, o.projectId, o.coin).expected += o.amountUnits;
    }
    if (projectOf.size === 0) return [];
    const addresses = [...projectOf.keys()];

    const [moved, topUps, fees, inFlight] = await Promise.all([
      sqlQuery<{ address: string; coin: string; units: string }>(
        this.deps.db,
        // A confirmed plan moved what it holds of each address; a plan failed after a stage went out
        // moved what its deposit addresses' own transactions that confirmed sent (a failed plan's sent
        // steps are tracked to their end).
        sql`select address, coin, sum(units)::text as units from (
              select a.address, a.coin, a.amount_units as units from treasury_plan_addresses a join treasury_plans p on p.id = a.plan_id
               where p.status = 'confirmed' and a.chain = ${target.chain} and a.network = ${target.network} and a.address = any(${addresses}::text[])
              union all
              select s.signer_address, p.coin, coalesce((s.moves ->> p.coin)::numeric, 0) from treasury_plan_steps s join treasury_plans p on p.id = s.plan_id
               where p.status = 'failed' and p.chain = ${target.chain} and p.network = ${target.network} and s.signer_kind = 'deposit'
                 and s.kind = 'transaction' and s.status = 'confirmed' and s.signer_address = any(${addresses}::text[])
            ) moved group by address, coin`,
      ),
      sqlQuery<{ address: string; units: string }>(
        this.deps.db,
        sql`select s.to_address as address, sum(coalesce((s.moves ->> ${target.nativeCoin})::numeric, 0))::text as units
              from treasury_plan_steps s join treasury_plans p on p.id = s.plan_id
             where p.chain = ${target.chain} and p.network = ${target.network} and s.signer_kind = 'operator' and s.kind = 'transaction'
               and s.status = 'confirmed' and s.to_address = any(${addresses}::text[])
             group by s.to_address`,
      ),
      sqlQuery<{ address: string; units: string }>(
        this.deps.db,
        sql`select s.signer_address as address, sum(s.fee_units)::text as units
              from treasury_plan_steps s join treasury_plans p on p.id = s.plan_id
             where p.chain = ${target.chain} and p.network = ${target.network} and s.signer_kind = 'deposit' and s.kind = 'transaction'
               and s.status = 'confirmed' and s.signer_address = any(${addresses}::text[])
             group by s.signer_address`,
      ),
      sqlQuery<{ address: string }>(
        this.deps.db,
        sql`select distinct a.address from treasury_plan_addresses a join treasury_plans p on p.id = a.plan_id
             where a.held and p.status = 'broadcast' and a.chain = ${target.chain} and a.network = ${target.network}`,
      ),
    ]);
    for (const m of moved) entry(m.address, projectOf.get(m.address)!, m.coin).expected -= BigInt(m.units);
    for (const u of topUps) entry(u.address, projectOf.get(u.address)!, target.nativeCoin).expected += BigInt(u.units);
    for (const f of fees) entry(f.address, projectOf.get(f.address)!, target.nativeCoin).allowance += BigInt(f.units);
    const flying = new Set(inFlight.map((r) => r.address));
    return [...byKey.values()]
      .filter((r) => !flying.has(r.address))
      .map((r) => ({ address: r.address, projectId: r.projectId, coin: r.coin, expectedUnits: r.expected, feeAllowanceUnits: r.allowance }));
  }
}

/**
 * The differences between the recorded holdings and the chain's balances (address → coin → base
 * units), over every coin either side names for the recorded addresses. A holding differs when the
 * chain has more than expected, or less than expected less its fee allowance. Pure.
 */
export function compareHoldings(recorded: readonly RecordedHolding[], balances: ReadonlyMap<string, Readonly<Record<string, bigint>>>): HoldingDifference[] {
  const found: HoldingDifference[] = [];
  const byAddress = new Map<string, RecordedHolding[]>();
  for (const r of recorded) byAddress.set(r.address, [...(byAddress.get(r.address) ?? []), r]);
  for (const [address, rows] of byAddress) {
    const chain = balances.get(address) ?? {};
    const projectId = rows[0]!.projectId;
    const coins = new Set([...rows.map((r) => r.coin), ...Object.keys(chain)]);
    for (const coin of coins) {
      const row = rows.find((r) => r.coin === coin);
      const expected = row?.expectedUnits ?? 0n;
      const allowance = row?.feeAllowanceUnits ?? 0n;
      const held = chain[coin] ?? 0n;
      if (held > expected || held < expected - allowance) {
        found.push({ address, projectId, coin, kind: 'balance_differs', gateway_units: expected.toString(), provider_units: held.toString() });
      }
    }
  }
  return found;
}
