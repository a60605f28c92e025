import {
  coreErrors,
  sql,
  sqlIdentifier,
  sqlJoin,
  sqlQuery,
  withUnitsColumns,
  type AccountTreasury,
  type ChainAdapter,
  type ChainId,
  type ChainTreasury,
  type Sql,
  type WatcherOptions,
} from '@gw/kernel';
import type { Knex } from 'knex';
import type { BalanceQuery, BalanceRow, Outpoint, OutputQuery, ReceivedOutput, ReceivedOutputs } from './received-outputs.js';
import type { WatcherRegistry } from './watcher-registry.js';

/** The largest page `list` and `balances` answer. */
export const MAX_OUTPUTS_PAGE = 1000;

/** A row of `watchers_transfers` as the reads select it, base units already bigint. */
interface OutputRow {
  id: string;
  chain: ChainId;
  network: string;
  coin: string;
  tx_hash: string;
  output_index: number;
  to_address: string;
  pool_address_id: string;
  project_id: string;
  amount_units: bigint;
  block_height: string | number | null;
  status: 'mempool' | 'in_block' | 'reverted';
  attestation: 'single' | 'quorum' | 'operator' | null;
  confirmed: boolean;
  invoice_id: string | null;
  match: string;
  received_at: Date;
  spent_by: string | null;
  spent_height: string | number | null;
}

const OUTPUT_COLUMNS = sql`id, chain, network, coin, tx_hash, output_index, to_address, pool_address_id, project_id, amount_units, block_height, status,
                           attestation, invoice_id, match, received_at, spent_by, spent_height`;

/** The group key of each `balances` grouping, in its order (the keyset). */
const GROUP_KEYS = {
  address: ['chain', 'network', 'to_address', 'project_id', 'coin'],
  project: ['chain', 'network', 'project_id', 'coin'],
  network: ['chain', 'network', 'coin'],
} as const satisfies Record<BalanceQuery['groupBy'], readonly string[]>;

/**
 * `ReceivedOutputs` over `watchers_transfers` (see the contract): reverted transfers are never an
 * output, `spent_by` says whether one was spent. Money that belongs to no paid invoice
 * (`unclaimedUnits`) is an output without an invoice (orphan, ambiguous, dust) or a late payment to
 * an expired invoice; an attributed orphan belongs to its new invoice. Cursors: `list` pages by
 * the transfer id, `balances` by the group key (an opaque base64url text). Confirmed is in a block
 * and, on the networks the registry watches with a quorum above 1, attested (issue 40); a network
 * no longer watched counts as quorum 1.
 */
export class ReceivedOutputsReads implements ReceivedOutputs {
  private readonly treasuries = new Map<string, ChainTreasury | undefined>();
  private readonly accountTreasuries = new Map<string, AccountTreasury | undefined>();

  constructor(private readonly deps: { db: Knex; watchersRegistry: WatcherRegistry }) {}

  async list(query: OutputQuery): Promise<{ outputs: ReceivedOutput[]; next: string | null }> {
    const limit = pageLimit(query.limit);
    const spent = query.spent ?? 'unspent';
    const confirmed = this.confirmed();
    const conditions: Sql[] = [
      sql`chain = ${query.chain}`,
      sql`network = ${query.network}`,
      sql`status <> 'reverted'`,
      ...(spent === 'unspent' ? [sql`spent_by is null`] : spent === 'spent' ? [sql`spent_by is not null`] : []),
      ...(query.projectId !== undefined ? [sql`project_id = ${query.projectId}`] : []),
      ...(query.invoiceIds !== undefined ? [sql`invoice_id = any(${[...query.invoiceIds]}::text[])`] : []),
      ...(query.addresses !== undefined ? [sql`to_address = any(${[...query.addresses]}::text[])`] : []),
      ...(query.receivedBefore !== undefined ? [sql`received_at <= ${query.receivedBefore}`] : []),
      ...(query.minUnits !== undefined ? [sql`amount_units >= ${query.minUnits.toString()}::numeric`] : []),
      ...(query.confirmedOnly ? [confirmed] : []),
      ...(query.inBlockOnly ? [sql`status = 'in_block'`] : []),
      ...(query.after !== undefined ? [sql`id > ${query.after}`] : []),
    ];
    const rows = await outputRows(
      this.deps.db,
      sql`select ${OUTPUT_COLUMNS}, ${confirmed} as confirmed from watchers_transfers where ${sqlJoin(conditions, sql` and `)} order by id limit ${limit + 1}`,
    );
    const page = rows.slice(0, limit).map(toOutput);
    return { outputs: page, next: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  async byOutpoints(chain: ChainId, network: string, outpoints: readonly Outpoint[]): Promise<ReceivedOutput[]> {
    if (outpoints.length === 0) return [];
    const rows = await outputRows(
      this.deps.db,
      sql`select ${OUTPUT_COLUMNS}, ${this.confirmed()} as confirmed from watchers_transfers w
           where w.chain = ${chain} and w.network = ${network}
             and (w.tx_hash, w.output_index) in (select * from unnest(${outpoints.map((o) => o.txHash)}::text[], ${outpoints.map((o) => o.outputIndex)}::int[]))
           order by w.id`,
    );
    return rows.map(toOutput);
  }

  async balances(query: BalanceQuery): Promise<{ rows: BalanceRow[]; next: string | null }> {
    const limit = pageLimit(query.limit);
    const keys: readonly string[] = GROUP_KEYS[query.groupBy];
    if (keys === undefined) throw coreErrors.validation_error({ message: `groupBy must be address, project or network`, details: { field: 'groupBy' } });
    const columns = sqlJoin(keys.map((k) => sqlIdentifier(k)));
    const after = query.after === undefined ? undefined : decodeCursor(query.after, keys.length);
    const conditions: Sql[] = [
      sql`spent_by is null`,
      sql`status <> 'reverted'`,
      ...(query.chain !== undefined ? [sql`chain = ${query.chain}`] : []),
      ...(query.network !== undefined ? [sql`network = ${query.network}`] : []),
      ...(query.projectId !== undefined ? [sql`project_id = ${query.projectId}`] : []),
      ...(query.projectIds !== undefined ? [sql`project_id = any(${[...query.projectIds]}::text[])`] : []),
      ...(after ? [sql`(${columns}) > (${sqlJoin(after.map((value) => sql`${value}::text`))})`] : []),
    ];
    const confirmed = this.confirmed();
    const rows = await sqlQuery<Record<string, string | number>>(
      this.deps.db,
      sql`select ${columns},
                 coalesce(sum(amount_units) filter (where ${confirmed}), 0)::text as confirmed_units,
                 coalesce(sum(amount_units) filter (where not ${confirmed}), 0)::text as unconfirmed_units,
                 coalesce(sum(amount_units) filter (where match = 'late' or invoice_id is null), 0)::text as unclaimed_units,
                 count(*)::int as outputs
            from watchers_transfers
           where ${sqlJoin(conditions, sql` and `)}
           group by ${columns}
           order by ${columns}
           limit ${limit + 1}`,
    );
    const page = rows.slice(0, limit).map((raw) => {
      const row = withUnitsColumns<Record<string, string | number | bigint>>(raw, ['confirmed_units', 'unconfirmed_units', 'unclaimed_units']);
      return {
        chain: row['chain'] as ChainId,
        network: row['network'] as string,
        coin: row['coin'] as string,
        ...(query.groupBy !== 'network' ? { projectId: row['project_id'] as string } : {}),
        ...(query.groupBy === 'address' ? { address: row['to_address'] as string } : {}),
        confirmedUnits: row['confirmed_units'] as bigint,
        unconfirmedUnits: row['unconfirmed_units'] as bigint,
        outputs: row['outputs'] as number,
        unclaimedUnits: row['unclaimed_units'] as bigint,
      } satisfies BalanceRow;
    });
    const last = rows.length > limit ? rows[limit - 1]! : undefined;
    return { rows: page, next: last ? encodeCursor(keys.map((k) => String(last[k]))) : null };
  }

  /**
   * The condition of a confirmed row (`ReceivedOutput.confirmed`): in a block, and attested where
   * the registry watches its network with a quorum above 1.
   */
  private confirmed(): Sql {
    const quorumNetworks = this.deps.watchersRegistry
      .list()
      .filter((target) => (target.quorum ?? 1) > 1)
      .map((target) => `${target.adapter.definition.id}:${target.network}`);
    if (quorumNetworks.length === 0) return sql`(status = 'in_block')`;
    return sql`(status = 'in_block' and (attested_at is not null or not (chain || ':' || network) = any(${quorumNetworks}::text[])))`;
  }

  treasuryOf(chain: ChainId, network: string): ChainTreasury | undefined {
    return this.builtOnce(this.treasuries, chain, network, (adapter, options) => adapter.createTreasury?.(options));
  }

  accountTreasuryOf(chain: ChainId, network: string): AccountTreasury | undefined {
    return this.builtOnce(this.accountTreasuries, chain, network, (adapter, options) => adapter.createAccountTreasury?.(options));
  }

  /**
   * What `build` makes of a watched network, made once and kept in `cache`: over the watcher's own
   * providers (one pool, one failover order, one set of provider metrics). Undefined where the
   * network is not watched through providers or the chain builds none.
   */
  private builtOnce<T>(
    cache: Map<string, T | undefined>,
    chain: ChainId,
    network: string,
    build: (adapter: ChainAdapter, options: WatcherOptions) => T | undefined,
  ): T | undefined {
    const key = `${chain}:${network}`;
    if (cache.has(key)) return cache.get(key);
    const target = this.deps.watchersRegistry.get(chain, network);
    let built: T | undefined;
    if (target?.providers) {
      const { networks } = target.adapter.definition;
      const definition = [networks.mainnet, ...networks.testnets].find((n) => n.id === network)!;
      built = build(target.adapter, { network: definition, providers: target.providers });
    }
    cache.set(key, built);
    return built;
  }

  async headHeight(chain: ChainId, network: string): Promise<number | null> {
    const [row] = await sqlQuery<{ head_height: string | number | null }>(
      this.deps.db,
      sql`select head_height from watchers_cursors where chain = ${chain} and network = ${network}`,
    );
    return row?.head_height == null ? null : Number(row.head_height);
  }
}

function pageLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_OUTPUTS_PAGE) {
    throw coreErrors.validation_error({ message: `limit must be an integer from 1 to ${MAX_OUTPUTS_PAGE}`, details: { field: 'limit' } });
  }
  return limit;
}

function encodeCursor(values: readonly string[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

function decodeCursor(cursor: string, length: number): string[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = undefined;
  }
  if (!Array.isArray(values) || values.length !== length || !values.every((v) => typeof v === 'string')) {
    throw coreErrors.validation_error({ message: 'after is not a cursor of this listing', details: { field: 'after' } });
  }
  return values as string[];
}

async function outputRows(db: Knex, query: Sql): Promise<OutputRow[]> {
  return (await sqlQuery<object>(db, query)).map((row) => withUnitsColumns<OutputRow>(row, ['amount_units']));
}

function toOutput(row: OutputRow): ReceivedOutput {
  return {
    id: row.id,
    txHash: row.tx_hash,
    outputIndex: row.output_index,
    chain: row.chain,
    network: row.network,
    coin: row.coin,
    projectId: row.project_id,
    address: row.to_address,
    poolAddressId: row.pool_address_id,
    amountUnits: row.amount_units,
    blockHeight: row.block_height === null ? null : Number(row.block_height),
    status: row.status,
    attestation: row.attestation,
    confirmed: row.confirmed,
    invoiceId: row.invoice_id,
    match: row.match,
    receivedAt: new Date(row.received_at),
    spentBy: row.spent_by,
    spentHeight: row.spent_height === null ? null : Number(row.spent_height),
  };
}
