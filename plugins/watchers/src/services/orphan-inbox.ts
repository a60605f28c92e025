import {
  type Actor,
  type ChainId,
  type ChainRegistry,
  type CoinId,
  coreErrors,
  fromBaseUnits,
  parseInstant,
  type ProjectKind,
  type Sql,
  sql,
  sqlJoin,
  sqlQuery,
  withUnitsColumns,
  isoTime,
  isoTimeOrNull,
} from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { InvoiceView, OrphanAttribution } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { Static } from 'typebox';
import { watchersErrors } from '../errors.js';
import type { ListOrphansQuery, OrphanSchema } from '../schemas.js';

type OrphanView = Static<typeof OrphanSchema>;

interface TransferRow {
  id: string;
  chain: string;
  network: string;
  coin: CoinId;
  tx_hash: string;
  output_index: number;
  to_address: string;
  from_address: string | null;
  amount_units: bigint;
  block_height: string | null;
  block_hash: string | null;
  status: OrphanView['status'];
  project_id: string;
  pool_address_id: string;
  invoice_id: string | null;
  match: string;
  attributed_at: Date | null;
  /** Null while fewer providers than the network's quorum reported it (issue 40). */
  attested_at: Date | null;
  received_at: Date;
}

/** `watchers_transfers` rows (`select *`), with base units read as bigint. */
async function transferRows(db: Knex | Knex.Transaction, query: Sql): Promise<TransferRow[]> {
  return (await sqlQuery<object>(db, query)).map((row) => withUnitsColumns<TransferRow>(row, ['amount_units']));
}

export interface AttributeInput {
  readonly external_id: string;
  readonly user_id?: string | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly to_address?: string | undefined;
  readonly tx_output_index?: number | undefined;
}

/**
 * The orphan-payment inbox (spec 2.3, 4.3): receipts at a project's pool addresses that no invoice
 * took. Attribution turns one into a synthetic `paid` invoice with `invoice.paid`, in one
 * transaction with marking the receipt attributed.
 */
export class OrphanInbox {
  constructor(private readonly deps: { db: Knex; chains: ChainRegistry; invoicesAttribution: OrphanAttribution; addressPoolService: AddressPoolService }) {}

  async list(projectId: string, filter: Static<typeof ListOrphansQuery>): Promise<{ items: OrphanView[]; next_cursor?: string }> {
    const from = filter.date_from !== undefined ? parseInstant(filter.date_from, 'date_from', 'start') : undefined;
    const to = filter.date_to !== undefined ? parseInstant(filter.date_to, 'date_to', 'end') : undefined;
    if (from && to && from > to)
      throw coreErrors.validation_error({ message: 'query.date_from is after query.date_to', details: { field: 'query.date_from' } });
    if (filter.amount_units_gte !== undefined && filter.amount_units_lte !== undefined && BigInt(filter.amount_units_gte) > BigInt(filter.amount_units_lte)) {
      throw coreErrors.validation_error({ message: 'query.amount_units_gte is above query.amount_units_lte', details: { field: 'query.amount_units_gte' } });
    }
    const conditions = [
      sql`project_id = ${projectId}`,
      sql`match in ('orphan', 'ambiguous')`,
      ...(filter.cursor ? [sql`id < ${filter.cursor}`] : []),
      ...(filter.attributed === 'true' ? [sql`attributed_at is not null`] : filter.attributed === 'false' ? [sql`attributed_at is null`] : []),
      ...(filter.chain ? [sql`chain = ${filter.chain}`] : []),
      ...(filter.tx_hash ? [sql`tx_hash = any(${[...new Set([filter.tx_hash.trim(), filter.tx_hash.trim().toLowerCase()])]}::text[])`] : []),
      ...(from ? [sql`received_at >= ${from}`] : []),
      ...(to ? [sql`received_at <= ${to}`] : []),
      ...(filter.amount_units_gte !== undefined ? [sql`amount_units >= ${filter.amount_units_gte}::numeric`] : []),
      ...(filter.amount_units_lte !== undefined ? [sql`amount_units <= ${filter.amount_units_lte}::numeric`] : []),
    ];
    const rows = await transferRows(
      this.deps.db,
      sql`select * from watchers_transfers where ${sqlJoin(conditions, sql` and `)} order by id desc limit ${filter.limit + 1}`,
    );
    const page = rows.slice(0, filter.limit);
    const items = page.map((row) => this.view(row));
    return rows.length > filter.limit ? { items, next_cursor: page[page.length - 1]!.id } : { items };
  }

  /**
   * The project's orphan receipts that are in a block and not attributed, at any of `addresses`,
   * oldest first: what reached addresses whose invoice no longer takes payments (the sessions
   * plugin credits payments to the addresses of invoices its payers switched away from, issue 38).
   */
  async unattributedAt(projectId: string, addresses: readonly string[]): Promise<OrphanView[]> {
    if (addresses.length === 0) return [];
    const rows = await transferRows(
      this.deps.db,
      sql`select * from watchers_transfers
           where project_id = ${projectId} and match = 'orphan' and attributed_at is null and status = 'in_block'
             and to_address = any(${[...new Set(addresses)]}::text[])
           order by id`,
    );
    return rows.map((row) => this.view(row));
  }

  /**
   * Attributes the project's unattributed receipt of `txHash` (narrowed by `to_address` and
   * `tx_output_index` when the transaction holds several) to `external_id`. 404
   * `orphan_not_found` (also for another project's receipt, one still in the mempool or reorganised
   * away), 400 `validation_error` when several receipts remain, 409 `orphan_already_attributed`,
   * 409 `orphan_not_confirmed` below the chain's confirmation threshold or, on a network with a
   * quorum (issue 40), before the quorum of providers reported it in its block (or the operator
   * accepted it over their disagreement), 409 `external_id_conflict`.
   */
  async attribute(project: { id: string; kind: ProjectKind }, txHash: string, input: AttributeInput, actor: Actor): Promise<InvoiceView> {
    return this.deps.db.transaction(async (trx) => {
      const address = input.to_address?.trim();
      // Hex (EVM) addresses are stored checksummed; any letter case names the same address.
      const toAddress =
        address === undefined
          ? sql``
          : /^0x[0-9a-f]{40}$/i.test(address)
            ? sql`and lower(to_address) = ${address.toLowerCase()}`
            : sql`and to_address = ${address}`;
      const outputIndex = input.tx_output_index === undefined ? sql`` : sql`and output_index = ${input.tx_output_index}`;
      const rows = await transferRows(
        trx,
        sql`select * from watchers_transfers
             where project_id = ${project.id} and match in ('orphan', 'ambiguous')
               and tx_hash = any(${[...new Set([txHash.trim(), txHash.trim().toLowerCase()])]}::text[]) ${toAddress} ${outputIndex}
             order by id
             for update`,
      );
      const usable = rows.filter((r) => r.status === 'in_block');
      if (usable.length === 0) throw watchersErrors.orphan_not_found();
      if (usable.length > 1) {
        throw coreErrors.validation_error({
          message: 'This transaction holds several orphan payments: give to_address or tx_output_index to pick one.',
          details: {
            field: 'body.to_address',
            candidates: usable.map((r) => ({ to_address: r.to_address, tx_output_index: r.output_index, amount_units: r.amount_units.toString() })),
          },
        });
      }
      const orphan = usable[0]!;
      if (orphan.attributed_at) throw watchersErrors.orphan_already_attributed({ details: { invoice_id: orphan.invoice_id } });
      // No paid invoice on one provider's word: the pass that recorded it attests it where the quorum is 1.
      if (orphan.attested_at === null) {
        throw watchersErrors.orphan_not_confirmed({
          message:
            "Fewer providers than the network's quorum have reported this payment in its block so far; try again later (a disagreement between them waits for the operator's decision: gateway watcher disagreements).",
          details: { attested: false },
        });
      }
      const [cursor] = await sqlQuery<{ head_height: string | null }>(
        trx,
        sql`select head_height from watchers_cursors where chain = ${orphan.chain} and network = ${orphan.network}`,
      );
      const confirmations =
        cursor?.head_height == null || orphan.block_height === null ? 0 : Math.max(0, Number(cursor.head_height) - Number(orphan.block_height) + 1);
      const result = await this.deps.invoicesAttribution.createPaid(
        trx,
        {
          projectId: project.id,
          projectKind: project.kind,
          externalId: input.external_id,
          userId: input.user_id,
          metadata: input.metadata,
          coin: orphan.coin,
          address: orphan.to_address,
          poolAddressId: orphan.pool_address_id,
          derivationPath: await this.derivationPath(trx, orphan),
          txHash: orphan.tx_hash,
          outputIndex: orphan.output_index,
          amountUnits: orphan.amount_units,
          confirmations,
          blockHeight: orphan.block_height === null ? null : BigInt(orphan.block_height),
          blockHash: orphan.block_hash,
        },
        actor,
      );
      if ('refused' in result) {
        throw watchersErrors.orphan_not_confirmed({
          message: `The payment has ${result.refused.confirmations} of the ${result.refused.threshold} confirmations it needs before it can be attributed; try again later.`,
          details: { confirmations: result.refused.confirmations, confirmation_threshold: result.refused.threshold },
        });
      }
      const { invoice } = result;
      // Final: the synthetic invoice is paid already; confirmation counting must not pay it again.
      await sqlQuery(
        trx,
        sql`update watchers_transfers set invoice_id = ${invoice.id}, attributed_at = now(), final_at = now(), confirmations = ${confirmations}, updated_at = now() where id = ${orphan.id}`,
      );
      return invoice;
    });
  }

  private async derivationPath(trx: Knex.Transaction, orphan: TransferRow): Promise<string> {
    const rows = await this.deps.addressPoolService.lookupAddresses(orphan.chain as ChainId, [orphan.to_address], trx);
    const row = rows.find((r) => r.id === orphan.pool_address_id);
    // The pool row went with a sandbox reset or project purge: nothing left to attribute to.
    if (!row) throw watchersErrors.orphan_not_found({ message: 'The pool address of this payment no longer exists.' });
    return row.derivationPath;
  }

  private view(row: TransferRow): OrphanView {
    const decimals = this.deps.chains.storedCoin(row.coin).decimals;
    return {
      id: row.id,
      tx_hash: row.tx_hash,
      tx_output_index: row.output_index,
      to_address: row.to_address,
      from_address: row.from_address,
      chain: row.chain as OrphanView['chain'],
      network: row.network,
      coin: row.coin,
      amount_units: row.amount_units.toString(),
      amount: fromBaseUnits(row.amount_units, decimals),
      block_height: row.block_height === null ? null : Number(row.block_height),
      status: row.status,
      ambiguous: row.match === 'ambiguous',
      attributed: row.attributed_at !== null,
      attributed_at_iso: isoTimeOrNull(row.attributed_at),
      invoice_id: row.invoice_id,
      received_at: Math.floor(new Date(row.received_at).getTime() / 1000),
      received_at_iso: isoTime(row.received_at),
    };
  }
}
